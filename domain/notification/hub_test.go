package notification_test

import (
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/notification"
	"tracker/internal/syncbuf"
	"tracker/store/storetest"
)

func TestHubStopsQuietlyWhenItsPoolClosesFirst(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	var logs syncbuf.Buffer
	hub := notification.NewHub(db, domain.SystemClock{}, slog.New(slog.NewTextHandler(&logs, nil)))
	defer hub.Close()
	_, cancel := hub.Subscribe(uuid.New())
	defer cancel()
	time.Sleep(500 * time.Millisecond) // listening, and a first look done
	db.Close()
	// Past the hub's relisten delay (1 s) and its backstop (2 s) twice.
	time.Sleep(2*notification.Backstop + time.Second)
	if s := logs.String(); s != "" {
		t.Errorf("the hub logged after its pool closed:\n%s", s)
	}
}

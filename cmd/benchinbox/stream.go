package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// streamClient has no timeout: a stream stays open.
var streamClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}

// stream holds p's live stream open until ctx ends, reconnecting with
// Last-Event-ID when the server ends it, and records every notification.
func (b *bench) stream(ctx context.Context, p person, ready *sync.WaitGroup) error {
	last, first := "", true
	for ctx.Err() == nil {
		req, err := http.NewRequestWithContext(ctx, "GET", b.url+"/api/v1/notifications/stream", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+p.token)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		res, err := streamClient.Do(req)
		if err != nil {
			if first {
				ready.Done()
			}
			return err
		}
		if res.StatusCode != 200 {
			res.Body.Close()
			if first {
				ready.Done()
			}
			return fmt.Errorf("stream: %d", res.StatusCode)
		}
		if first {
			ready.Done()
			first = false
		}
		sc := bufio.NewScanner(res.Body)
		var id, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "id: "):
				id = line[4:]
			case strings.HasPrefix(line, "data: "):
				data = line[6:]
			case line == "" && data != "":
				b.record(p.id, data, time.Now())
				last, data, id = id, "", ""
			}
		}
		res.Body.Close()
	}
	return ctx.Err()
}

func (b *bench) record(user uuid.UUID, data string, at time.Time) {
	var n struct {
		ID     uuid.UUID `json:"id"`
		Type   string    `json:"type"`
		Ticket *struct {
			ID uuid.UUID `json:"id"`
		} `json:"ticket"`
	}
	if json.Unmarshal([]byte(data), &n) != nil || n.Ticket == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.arrived[user] {
		if a.id == n.ID {
			b.dups++
			return
		}
	}
	b.arrived[user] = append(b.arrived[user], arrival{id: n.ID, ticket: n.Ticket.ID, typ: n.Type, at: at})
}

func (b *bench) received() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, as := range b.arrived {
		n += len(as)
	}
	return n
}

package attachments_test

import (
	"net"
	"net/http"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/attachments"
	"tracker/api/exchange"
	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/importer"
	"tracker/domain/testfactory"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
)

// maxBytes is the test apps' SERVICE_ATTACHMENT_MAX_BYTES.
const maxBytes = 1 << 20

// world is the apitest world (an org with a member of every role, a
// project, a ticket) with a second ticket, served over a real listener (the
// local store's URLs point at it) with one of the two object stores.
type world struct {
	apitest.World
	backend     string
	objects     objectstore.Store
	svc         *attachment.Service
	otherTicket uuid.UUID
}

// backendNames are the object stores every case runs against.
var backendNames = []string{"minio", "local"}

func setup(t *testing.T, backend string) world {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		objects objectstore.Store
		storage http.Handler
	)
	switch backend {
	case "minio":
		objects = objectstoretest.MinIO(t)
	case "local":
		l := objectstoretest.NewLocal(t, "http://"+ln.Addr().String()+"/storage", nil)
		objects, storage = l, l
	}
	var svc *attachment.Service
	a := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		svc = attachment.New(e.DB, objects, domain.SystemClock{}, maxBytes)
		return []api.Module{attachments.New(svc, storage),
			exchange.New(export.New(e.DB, e.Clock), importer.New(e.DB, e.Clock, nil), e.Log, exchange.Settings{})}
	}})
	go func() { _ = a.Env.App.Listener(ln) }()
	t.Cleanup(func() { _ = a.Env.App.Shutdown() })
	w := world{World: a, backend: backend, objects: objects, svc: svc}
	w.otherTicket = testfactory.Ticket(t, a.Env.DB, a.Project, a.Owner.ID, testfactory.TicketOpts{}).ID
	return w
}

func ticketPath(ticket uuid.UUID, rest string) string {
	return "/api/v1/tickets/" + ticket.String() + "/attachments" + rest
}

// upload is a presign answer.
type upload struct {
	UploadURL  string            `json:"upload_url"`
	StorageKey string            `json:"storage_key"`
	Method     string            `json:"method"`
	Headers    map[string]string `json:"headers"`
	ExpiresAt  string            `json:"expires_at"`
}

func (w world) presign(t *testing.T, as apitest.User, ticket uuid.UUID, name, ctype string, size int) upload {
	t.Helper()
	var u upload
	w.Env.Do("POST", ticketPath(ticket, "/presign"), as.Token,
		map[string]any{"filename": name, "content_type": ctype, "size_bytes": size}).Expect(t, 200).Decode(t, &u)
	return u
}

// put sends body to a presigned URL over real HTTP with the presign's
// headers, the given content type in place of its own, and returns the
// status.
func put(t *testing.T, u upload, ctype string, body []byte) int {
	t.Helper()
	h := map[string]string{}
	for k, v := range u.Headers {
		h[k] = v
	}
	h["Content-Type"] = ctype
	code, _ := objectstoretest.Put(t, u.Method, u.UploadURL, h, body)
	return code
}

func confirmBody(as apitest.User, u upload, name, ctype string, size int) map[string]any {
	return map[string]any{"filename": name, "content_type": ctype, "size_bytes": size,
		"storage_key": u.StorageKey, "uploaded_by": as.ID}
}

// attach runs presign, PUT and confirm as as, and returns the attachment.
func (w world) attach(t *testing.T, as apitest.User, ticket uuid.UUID, name string, body []byte) map[string]any {
	t.Helper()
	u := w.presign(t, as, ticket, name, "text/plain", len(body))
	if code := put(t, u, "text/plain", body); code != 200 {
		t.Fatalf("upload %d", code)
	}
	return w.Env.Do("POST", ticketPath(ticket, "/confirm"), as.Token, confirmBody(as, u, name, "text/plain", len(body))).Expect(t, 201).Map(t)
}

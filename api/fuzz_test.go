package api

import (
	"bytes"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

// FuzzDecodeCursor: any text either decodes to the id it encodes or is
// refused; it never panics.
func FuzzDecodeCursor(f *testing.F) {
	f.Add(EncodeCursor(uuid.MustParse("0190a3b4-0000-7000-8000-000000000001")))
	f.Add("")
	f.Add("AAAAAAAAAAAAAAAAAAAAAA")
	f.Add("%00")
	f.Fuzz(func(t *testing.T, s string) {
		id, ok := DecodeCursor(s)
		if ok && (id == uuid.Nil || EncodeCursor(id) != s) {
			t.Fatalf("%q decoded to %v", s, id)
		}
	})
}

type fuzzReq struct {
	Name   string      `json:"name" validate:"required,min=1"`
	Body   *string     `json:"body"`
	Count  int64       `json:"count" validate:"gte=0"`
	IDs    []uuid.UUID `json:"ids"`
	Nested struct {
		Cents int64 `json:"budget_cents"`
	} `json:"nested"`
}

// FuzzBind: whatever the body, binding answers 2xx, 400, 413 or 422 with
// the envelope, never a 5xx.
func FuzzBind(f *testing.F) {
	app := fiber.New(fiber.Config{ErrorHandler: ErrorHandler(slog.New(slog.NewTextHandler(io.Discard, nil))),
		BodyLimit: DefaultBodyLimit, StreamRequestBody: true})
	app.Use(guardInput(DefaultBodyLimit, bodyLimits{}))
	app.Post("/", func(c *fiber.Ctx) error {
		var r fuzzReq
		if err := Bind(c, &r); err != nil {
			return err
		}
		return c.SendStatus(204)
	})
	for _, s := range []string{`{"name":"x"}`, `{"name":"\u0000"}`, "{\"name\":\"\xff\"}", `{"count":-1}`, `[]`, `{"ids":["x"]}`,
		`{"nested":{"budget_cents":1e30}}`, `{"body":null,"name":"a"}`, `{`, ``,
		`{"name":"a","name":"b"}`, `{"name":"a","Name":"b"}`, `{"nested":{"Budget_Cents":1}}`, `{"ids":[],"x":{"y":1,"y":2}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		res, err := app.Test(httptest.NewRequest("POST", "/", bytes.NewReader(body)), -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 500 || (res.StatusCode >= 400 && !bytes.Contains(b, []byte(`"error"`))) {
			t.Fatalf("%q: %d %s", body, res.StatusCode, b)
		}
	})
}

package api_test

import (
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/domain"
)

type lengthsModule struct{}

type lengthsReq struct {
	Body        string             `json:"body"`
	Name        string             `json:"name"`
	Description domain.Opt[string] `json:"description"`
	Statuses    []struct {
		Name string `json:"name"`
	} `json:"statuses"`
}

func (lengthsModule) Routes(r api.Router) {
	r.Post("/test-lengths", func(c *fiber.Ctx) error {
		var req lengthsReq
		if err := api.Bind(c, &req); err != nil {
			return err
		}
		return c.SendStatus(204)
	})
}

// Every bound string is capped: free text at 100,000 characters, names at
// 255, including PATCH fields and nested names.
func TestBoundStringsAreCapped(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: func(*apitest.Env) []api.Module { return []api.Module{lengthsModule{}} }})
	u := env.Register("Len")
	text := func(n int) string { return strings.Repeat("é", n) }
	env.Do("POST", "/api/v1/test-lengths", u.Token, map[string]any{"body": text(100_000), "name": text(255),
		"description": text(100_000), "statuses": []any{map[string]string{"name": text(255)}}}).Expect(t, 204)
	for field, body := range map[string]map[string]any{
		"body: must be at most 100000 characters":          {"body": text(100_001)},
		"description: must be at most 100000 characters":   {"description": text(100_001)},
		"name: must be at most 255 characters":             {"name": text(256)},
		"statuses[0].name: must be at most 255 characters": {"statuses": []any{map[string]string{"name": text(256)}}},
	} {
		r := env.Do("POST", "/api/v1/test-lengths", u.Token, body).Expect(t, 422)
		if d := r.Error().Details; len(d) != 1 || d[0] != field {
			t.Errorf("%s: %s", field, r.Body)
		}
	}
}

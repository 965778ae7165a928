package api_test

import (
	"strings"
	"testing"
	"time"

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
	BudgetCents domain.Opt[int64]  `json:"budget_cents"`
	Date        string             `json:"start_date"`
	At          *time.Time         `json:"at"`
	Statuses    []struct {
		Name string `json:"name"`
	} `json:"statuses"`
}

// lengthsRoute is the contract of the fixture route.
const lengthsRoute = `paths:
  /api/v1/test-lengths:
    post:
      operationId: testLengths
      summary: Bind a body of every bounded kind (a test fixture)
      requestBody:
        required: true
        content:
          application/json:
            schema: {type: object}
      responses:
        '204': {$ref: '#/components/responses/NoContent'}
`

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
	// POST /api/v1/test-lengths is this test's fixture of api.Bind, not a
	// route of the service: the document rightly does not list it, so the
	// test describes it (its 422s are held to the error envelope).
	env.FixtureRoutes = lengthsRoute
	u := env.Register("Len")
	text := func(n int) string { return strings.Repeat("é", n) }
	env.Do("POST", "/api/v1/test-lengths", u.Token, map[string]any{"body": text(100_000), "name": text(255),
		"description": text(100_000), "budget_cents": int64(1e15), "start_date": "1900-01-01", "at": "9999-12-31T00:00:00Z", "statuses": []any{map[string]string{"name": text(255)}}}).Expect(t, 204)
	for field, body := range map[string]map[string]any{
		"body: must be at most 100000 characters":                {"body": text(100_001)},
		"description: must be at most 100000 characters":         {"description": text(100_001)},
		"name: must be at most 255 characters":                   {"name": text(256)},
		"statuses[0].name: must be at most 255 characters":       {"statuses": []any{map[string]string{"name": text(256)}}},
		"budget_cents: must be between -10^15 and 10^15":         {"budget_cents": int64(1e15) + 1},
		"start_date: must be a date between years 1900 and 9999": {"start_date": "1899-12-31"},
		"at: must be a time between years 1900 and 9999":         {"at": "0800-01-02T00:00:00Z"},
	} {
		r := env.Do("POST", "/api/v1/test-lengths", u.Token, body).Expect(t, 422)
		if d := r.Error().Details; len(d) != 1 || d[0] != field {
			t.Errorf("%s: %s", field, r.Body)
		}
	}
}

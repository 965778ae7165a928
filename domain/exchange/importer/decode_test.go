package importer

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/internal/civil"
)

type noKnown struct{}

func (noKnown) MemberEmails(context.Context, []string) (map[string]bool, error) { return nil, nil }
func (noKnown) WorkflowNames(context.Context, []string) (map[string]bool, error) {
	return nil, nil
}

func TestDecode(t *testing.T) {
	t.Run("version first", func(t *testing.T) {
		for body, details := range map[string]string{
			`{"version": 2}`:                     "received version 2, expected 1",
			`{"version": 2, "projects": "oops"}`: "received version 2, expected 1",
			`{"version": 1.5, "users": 3}`:       "received version 1.5, expected 1",
			`{"version": 0, "source": "x"}`:      "received version 0, expected 1",
		} {
			_, err := decode([]byte(body))
			var ve *VersionError
			if !errors.As(err, &ve) || ve.Details() != details || ve.Error() != "unsupported export version" {
				t.Errorf("%s: %v", body, err)
			}
		}
	})
	t.Run("malformed is a 400", func(t *testing.T) {
		for _, body := range []string{``, `{`, `{"version":1}x`} {
			_, err := decode([]byte(body))
			var de *domain.Error
			if !errors.As(err, &de) || de.Kind != domain.KindBadRequest {
				t.Errorf("%q: %v", body, err)
			}
		}
	})
	t.Run("hostile text is a 422, even in a field the document ignores", func(t *testing.T) {
		for _, body := range []string{`{"version":1,"users":[],"note":1e400}`, `{"version":1,"x":"a\u0000b"}`,
			"{\"version\":1,\"x\":\"\xff\"}"} {
			_, err := decode([]byte(body))
			var de *domain.Error
			if !errors.As(err, &de) || de.Kind != domain.KindValidation {
				t.Errorf("%q: %v", body, err)
			}
		}
	})
	t.Run("every wrong type by path", func(t *testing.T) {
		d, err := decode([]byte(`{"version":1,"source":"s","exported_at":"2025-01-01T00:00:00Z","users":[{"email":1},{"email":"a@b.c","role":2}],
			"workflows":[],"labels":[],"projects":[{"key":"K","name":"n","tickets":[{"number":"x","title":"t","status":"s","reporter":"a@b.c"}]}]}`))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"users[0].email: must be a string", "users[1].role: must be a string",
			"projects[0].tickets[0].number: must be an integer"} {
			if !slices.Contains(d.typeProblems, want) {
				t.Errorf("missing %q in %q", want, d.typeProblems)
			}
		}
		probs, err := validate(context.Background(), d, noKnown{})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(probs, "users[0].email: required") || slices.Contains(probs, "projects[0].tickets[0].number: must be at least 1") {
			t.Errorf("a wrong type is reported twice: %q", probs)
		}
	})
	t.Run("problems are capped", func(t *testing.T) {
		d := decoded{complete: true}
		v := 1
		d.doc.Version = &v
		for i := 0; i < MaxProblems+10; i++ {
			d.doc.Labels = append(d.doc.Labels, export.Label{})
		}
		probs, _ := validate(context.Background(), d, noKnown{})
		if len(probs) != MaxProblems+1 || probs[MaxProblems] == "" {
			t.Errorf("%d problems", len(probs))
		}
	})
}

// A date or two-place decimal field of the document (a ticketdb.Content
// field of either type reaches the document by itself) is checked as such:
// a well-formed value passes, anything else names its path.
func TestTypeCheckerKnowsCivilTypes(t *testing.T) {
	type doc struct {
		Due    *civil.Date    `json:"due"`
		Amount *civil.Decimal `json:"amount"`
	}
	for body, want := range map[string][]string{
		`{"due": "2024-02-29", "amount": 12.5}`: nil,
		`{"due": null, "amount": -0.05}`:        nil,
		`{"due": "2023-02-29", "amount": 1.005}`: {"d.amount: must be a number with at most two decimal places",
			"d.due: must be a date YYYY-MM-DD"},
		`{"due": {}, "amount": "1"}`: {"d.amount: must be a number with at most two decimal places",
			"d.due: must be a date YYYY-MM-DD"},
	} {
		d := decoded{typePaths: map[string]bool{}}
		dec := json.NewDecoder(strings.NewReader(body))
		dec.UseNumber()
		if err := (typeChecker{out: &d, dec: dec}).value(reflect.TypeFor[doc](), "d", nil); err != nil {
			t.Fatal(err)
		}
		slices.Sort(d.typeProblems)
		if !slices.Equal(d.typeProblems, want) {
			t.Errorf("%s: %q, want %q", body, d.typeProblems, want)
		}
	}
}

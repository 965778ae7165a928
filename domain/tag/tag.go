// Package tag holds the use cases of entity tags: key-value pairs on an
// org's projects, tickets, users, teams and time entries.
package tag

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/tagdb"
)

// EntityTypes are the spec's taggable entity types.
var EntityTypes = []string{"project", "ticket", "user", "team", "time_entry"}

// Limits of tags (the spec names none): keys 1-100 characters, values
// 0-500, at most MaxPerRequest pairs in one PUT.
const (
	MaxKey        = 100
	MaxValue      = 500
	MaxPerRequest = 100
)

// Service runs the tag use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Tag is an entity tag as the API renders it.
type Tag struct {
	ID         uuid.UUID `json:"id"`
	OrgID      uuid.UUID `json:"org_id"`
	EntityType string    `json:"entity_type"`
	EntityID   uuid.UUID `json:"entity_id"`
	Key        string    `json:"key"`
	Value      string    `json:"value"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

func fromRow(r tagdb.Row) Tag {
	return Tag{ID: r.ID, OrgID: r.OrgID, EntityType: r.EntityType, EntityID: r.EntityID, Key: r.Key,
		Value: r.Value, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

func fromRows(rows []tagdb.Row) []Tag {
	out := make([]Tag, 0, len(rows))
	for _, r := range rows {
		out = append(out, fromRow(r))
	}
	return out
}

// Pair is one key and value to set; a nil Value is a missing field.
type Pair struct {
	Key   string
	Value *string
}

// Entity names the tagged entity: its org, type and id (the handlers build
// it from the path).
type Entity = tagdb.Entity

// CheckEntityType is the 422 for an entity type outside the spec's list.
func CheckEntityType(t string) error {
	if !slices.Contains(EntityTypes, t) {
		return domain.Invalid("entity_type: must be one of " + strings.Join(EntityTypes, ", "))
	}
	return nil
}

func checkKey(p *domain.Problems, field, key string) {
	if strings.TrimSpace(key) == "" || utf8.RuneCountInString(key) > MaxKey {
		p.Add(field, "must be 1-100 characters")
	}
}

// checkPairs validates a PUT body: every pair needs a key and a value, and a
// key may appear once (which value would win is otherwise a guess).
func checkPairs(pairs []Pair) error {
	var p domain.Problems
	if pairs == nil {
		p.Add("tags", "required")
		return p.Err()
	}
	if len(pairs) > MaxPerRequest {
		p.Add("tags", fmt.Sprintf("must have at most %d items", MaxPerRequest))
		return p.Err()
	}
	seen := map[string]bool{}
	for i, t := range pairs {
		f := fmt.Sprintf("tags[%d]", i)
		checkKey(&p, f+".key", t.Key)
		if seen[t.Key] {
			p.Add(f+".key", "duplicate key "+t.Key)
		}
		seen[t.Key] = true
		switch {
		case t.Value == nil:
			p.Add(f+".value", "required")
		case utf8.RuneCountInString(*t.Value) > MaxValue:
			p.Add(f+".value", "must be at most 500 characters")
		}
	}
	return p.Err()
}

// what names an entity type in messages ("time entry").
func what(entityType string) string { return strings.ReplaceAll(entityType, "_", " ") }

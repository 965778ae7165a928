// Package feed serves an org's event feed: the events its webhooks carry
// (the same ids and payloads), read oldest first from a position an
// integrator keeps, so one that missed deliveries catches up from its last
// event id without anything delivered twice.
package feed

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/feeddb"
)

// MinRole is the membership role the feed requires: events carry every
// project's data.
const MinRole = domain.RoleAdmin

// Service reads the feed.
type Service struct {
	db *store.DB
}

// New builds the service on db.
func New(db *store.DB) *Service { return &Service{db: db} }

// Event is one feed item: the webhook body's id, type, created_at, data and
// (ticket.updated, ticket.status_changed) changes, verbatim.
type Event struct {
	ID        uuid.UUID       `json:"id"`
	Type      string          `json:"type"`
	CreatedAt time.Time       `json:"created_at"`
	Data      json.RawMessage `json:"data"`
	Changes   json.RawMessage `json:"changes,omitempty"`
}

// Page is one read of the feed. NextCursor is where to read on from (the
// last item's position, or the one asked for when nothing is new); nil only
// when the feed is empty and no position was given.
type Page struct {
	Items      []Event `json:"items"`
	NextCursor *string `json:"next_cursor"`
}

// Query is what the caller asks for: events after After (an event id or a
// next_cursor, empty from the oldest kept), of Types (empty: all), at most
// Limit.
type Query struct {
	After string
	Types []string
	Limit int
}

// ParseTypes reads a comma-separated list of event types; an unknown one is
// a validation error naming it.
func ParseTypes(s string) ([]string, error) {
	var out []string
	for _, t := range strings.Split(s, ",") {
		t = strings.TrimSpace(t)
		if t == "" {
			continue
		}
		if !slices.Contains(domain.EventTypes, t) {
			return nil, domain.Invalid(fmt.Sprintf("types: unknown event type %q (one of %s)", t, strings.Join(domain.EventTypes, ", ")))
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Reader is one caller's authorized view of an org's feed, positioned.
type Reader struct {
	svc   *Service
	p     domain.Principal
	orgID uuid.UUID
	types []string
	pos   feeddb.Position
	// started: pos was given (or reached), so it is a cursor to report.
	started bool
}

// Open authorizes p on orgID's feed and positions a reader after `after`.
func (s *Service) Open(ctx context.Context, p domain.Principal, orgID uuid.UUID, after string, types []string) (*Reader, error) {
	if err := s.authorize(ctx, p, orgID); err != nil {
		return nil, err
	}
	r := &Reader{svc: s, p: p, orgID: orgID, types: types}
	if after == "" {
		return r, nil
	}
	pos, err := s.position(ctx, p, orgID, after)
	if err != nil {
		return nil, err
	}
	r.pos, r.started = pos, true
	return r, nil
}

// List reads one page of the feed.
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, q Query) (Page, error) {
	r, err := s.Open(ctx, p, orgID, q.After, q.Types)
	if err != nil {
		return Page{}, err
	}
	items, err := r.Next(ctx, q.Limit)
	if err != nil {
		return Page{}, err
	}
	return Page{Items: items, NextCursor: r.Cursor()}, nil
}

// Next reads up to limit events after the reader's position and moves it
// past them. Access is checked again on every read, so a stream ends the
// moment its caller is demoted, removed or its key revoked.
func (r *Reader) Next(ctx context.Context, limit int) ([]Event, error) {
	if err := r.svc.authorize(ctx, r.p, r.orgID); err != nil {
		return nil, err
	}
	rows, err := feeddb.Page(ctx, r.svc.db.Q(), feeddb.Query{OrgID: r.orgID, After: r.pos, Types: r.types,
		Projects: r.p.ProjectIDs, Limit: limit})
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, len(rows))
	for _, row := range rows {
		var ev Event
		if err := json.Unmarshal(row.Payload, &ev); err != nil {
			return nil, fmt.Errorf("event %s payload: %w", row.ID, err)
		}
		out = append(out, ev)
		if r.pos, err = row.Position(); err != nil {
			return nil, fmt.Errorf("event %s position: %w", row.ID, err)
		}
		r.started = true
	}
	return out, nil
}

// Cursor is the reader's position as a next_cursor (nil before any).
func (r *Reader) Cursor() *string {
	if !r.started {
		return nil
	}
	s := encodeCursor(r.pos)
	return &s
}

// authorize: the feed is an Admin's (a member below it gets 403 naming the
// role, a non-member 404). An API key acts with its owner's membership
// whatever its scope (read suffices: the feed is a read); one restricted
// to projects reads its projects' events only (Next filters).
func (s *Service) authorize(ctx context.Context, p domain.Principal, orgID uuid.UUID) error {
	a, err := domain.OrgReadFiltered(ctx, s.db.Q(), p, orgID, domain.RoleViewer, "organization")
	if err != nil {
		return err
	}
	if a.Member < MinRole {
		return domain.RequiresRole(MinRole)
	}
	return nil
}

// cursorLen is a next_cursor's bytes: the transaction id and the event id.
const cursorLen = 8 + 16

func encodeCursor(p feeddb.Position) string {
	b := make([]byte, cursorLen)
	binary.BigEndian.PutUint64(b, p.Txid)
	copy(b[8:], p.ID[:])
	return base64.RawURLEncoding.EncodeToString(b)
}

// errAfter is the 422 of an `after` that names no position.
func errAfter() error {
	return domain.Invalid("after: must be an event id of this organization kept in the feed (30 days), or a next_cursor")
}

// position reads `after`: an event id (looked up: its transaction is its
// place) or a next_cursor.
func (s *Service) position(ctx context.Context, p domain.Principal, orgID uuid.UUID, after string) (feeddb.Position, error) {
	if id, err := uuid.Parse(after); err == nil && len(after) == 36 {
		pos, err := feeddb.At(ctx, s.db.Q(), orgID, id, p.ProjectIDs)
		if errors.Is(err, store.ErrNotFound) {
			return feeddb.Position{}, errAfter()
		}
		return pos, err
	}
	b, err := base64.RawURLEncoding.DecodeString(after)
	if err != nil || len(b) != cursorLen || base64.RawURLEncoding.EncodeToString(b) != after {
		return feeddb.Position{}, errAfter()
	}
	var pos feeddb.Position
	pos.Txid = binary.BigEndian.Uint64(b)
	copy(pos.ID[:], b[8:])
	return pos, nil
}

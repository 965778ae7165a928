// Package notification tells people what concerns them: who watches a
// ticket, the mentions in a text, and each person's inbox.
//
// Notifications are written by Emit in the transaction of the change that
// causes them (a comment, a ticket's change, an approval), with one outbox
// row each (notificationdb.TopicCreated): the inbox shows them as soon as
// the change commits, and email and chat delivery consume the outbox rows
// like every other durable work. Whether a recipient may read the ticket,
// and whether they turned the type off, is checked by the insert itself.
package notification

import (
	"context"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/notificationdb"
)

// Notification types.
const (
	TypeAssigned          = "assigned"
	TypeMentioned         = "mentioned"
	TypeCommented         = "commented"
	TypeReplied           = "replied"
	TypeStatusChanged     = "status_changed"
	TypeDueSoon           = "due_soon"
	TypeTimeEntryApproved = "time_entry_approved"
	TypeTimeEntryRejected = "time_entry_rejected"
	TypeImportFinished    = "import_finished"
)

// Types lists every type, in the order settings show them.
var Types = []string{TypeAssigned, TypeMentioned, TypeCommented, TypeReplied, TypeStatusChanged, TypeDueSoon,
	TypeTimeEntryApproved, TypeTimeEntryRejected, TypeImportFinished}

// rank orders the types of one event's recipients: a person who is both
// mentioned and a watcher is told once, of the most specific reason.
func rank(typ string) int {
	switch typ {
	case TypeMentioned:
		return 3
	case TypeReplied:
		return 2
	case TypeAssigned:
		return 1
	}
	return 0
}

// Event is one change that may concern people.
type Event struct {
	OrgID uuid.UUID
	// ProjectID is the project whose readers may be told (uuid.Nil: any
	// member of the org, for an org-level event such as an import).
	ProjectID uuid.UUID
	TicketID  *uuid.UUID
	ActorID   *uuid.UUID // never told of their own change
	// Watch are people who start watching the ticket (the reporter, the
	// assignee, a commenter, whoever is mentioned); those who cannot read
	// it are skipped.
	Watch []uuid.UUID
	// To are people told with a specific type.
	To map[uuid.UUID]string
	// Watchers is the type the ticket's watchers are told of ("": none).
	Watchers string
	Excerpt  string
	At       time.Time
}

// Tell adds a recipient with typ unless they already have a more specific one.
func (e *Event) Tell(user uuid.UUID, typ string) {
	if e.To == nil {
		e.To = map[uuid.UUID]string{}
	}
	if old, ok := e.To[user]; !ok || rank(typ) > rank(old) {
		e.To[user] = typ
	}
}

// MaxExcerpt is the most characters of text a notification quotes.
const MaxExcerpt = 200

// Excerpt shortens text to MaxExcerpt characters.
func Excerpt(text string) string {
	if utf8.RuneCountInString(text) <= MaxExcerpt {
		return text
	}
	r := []rune(text)
	return string(r[:MaxExcerpt-1]) + "…"
}

// Emit writes an event's watches and notifications with q, the change's own
// transaction: one notification per recipient (the most specific type),
// none to the actor, none to anyone who cannot read the project's tickets
// or turned the type off.
func Emit(ctx context.Context, q store.Querier, e Event) error {
	if e.At.IsZero() {
		return errAt
	}
	if e.TicketID != nil && len(e.Watch) > 0 {
		if err := notificationdb.Watch(ctx, q, e.OrgID, e.ProjectID, *e.TicketID, e.Watch, e.At); err != nil {
			return err
		}
	}
	to := map[uuid.UUID]string{}
	if e.Watchers != "" && e.TicketID != nil {
		ids, err := notificationdb.WatcherIDs(ctx, q, *e.TicketID)
		if err != nil {
			return err
		}
		for _, id := range ids {
			to[id] = e.Watchers
		}
	}
	for id, typ := range e.To {
		if old, ok := to[id]; !ok || rank(typ) > rank(old) {
			to[id] = typ
		}
	}
	if e.ActorID != nil {
		delete(to, *e.ActorID)
	}
	if len(to) == 0 {
		return nil
	}
	var project *uuid.UUID
	if e.ProjectID != uuid.Nil {
		project = &e.ProjectID
	}
	rows := make([]notificationdb.New, 0, len(to))
	for id, typ := range to {
		rows = append(rows, notificationdb.New{ID: domain.NewID(), UserID: id, Type: typ, OrgID: e.OrgID, ProjectID: project,
			TicketID: e.TicketID, ActorID: e.ActorID, Excerpt: Excerpt(e.Excerpt), CreatedAt: e.At.UTC()})
	}
	_, err := notificationdb.Insert(ctx, q, rows)
	return err
}

// OnCreate is the event of a ticket's create as its insert statement
// writes it (notificationdb.CreatedCTEs): the ticket is new, so it has no
// watchers to tell yet; its recipients are those of To, but the actor.
func (e Event) OnCreate() notificationdb.OnCreate {
	o := notificationdb.OnCreate{Watch: e.Watch, Excerpt: Excerpt(e.Excerpt)}
	if e.ActorID != nil {
		o.Actor = *e.ActorID
	}
	for id, typ := range e.To {
		if e.ActorID != nil && id == *e.ActorID {
			continue
		}
		o.IDs, o.Users, o.Types = append(o.IDs, domain.NewID()), append(o.Users, id), append(o.Types, typ)
	}
	return o
}

type atError struct{}

func (atError) Error() string {
	return "notification event: At is unset (take it from the service's domain.Clock)"
}

var errAt error = atError{}

// Package codehost is the inbound code-hosting webhook: pull requests whose
// title or branch name a ticket (KEY-NUMBER) move it through its workflow
// (opened/reopened → In Review, merged → Done, closed unmerged → In
// Progress), and the per-org connections that give an org its own webhook
// URL and secret.
package codehost

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/domain/ticket"
	"tracker/internal/secretbox"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/codehostdb"
	"tracker/store/ticketdb"
)

// The integration's own user: the actor of its audit rows (created on first
// use, inactive, no password).
var (
	UserID    = uuid.MustParse("00000000-0000-7000-8000-00000000c0de")
	userEmail = "codehost@integrations.tracker.invalid"
	userName  = "Code host integration"
)

// Service handles deliveries and manages connections.
type Service struct {
	DB      *store.DB
	Tickets *ticket.Service
	// Secret is SERVICE_CODEHOST_WEBHOOK_SECRET; empty refuses every
	// delivery to the service-wide URL.
	Secret    string
	Box       *secretbox.Box
	Clock     domain.Clock
	PublicURL string
}

// New builds the service with every dependency.
func New(db *store.DB, tickets *ticket.Service, secret string, box *secretbox.Box, clock domain.Clock, publicURL string) *Service {
	return &Service{DB: db, Tickets: tickets, Secret: secret, Box: box, Clock: clock, PublicURL: publicURL}
}

// Delivery is one webhook request as received.
type Delivery struct {
	ConnectionID *uuid.UUID // nil: the service-wide URL and secret
	Event        string     // X-Codehost-Event
	DeliveryID   string     // X-Codehost-Delivery, optional
	Signature    string     // X-Codehost-Signature-256
	Body         []byte     // the raw body, exactly as signed
}

// Result is the webhook's answer.
type Result struct {
	Status          string       `json:"status"` // ok (ping), processed, ignored, duplicate
	Reason          string       `json:"reason,omitempty"`
	TicketRefsFound []string     `json:"ticket_refs_found"`
	Transitions     []Transition `json:"transitions"`
	Skipped         []Skip       `json:"skipped"`
}

// Transition is one ticket the delivery moved (or found in the target
// status already: old_status == new_status, nothing recorded).
type Transition struct {
	TicketRef string `json:"ticket_ref"`
	OldStatus string `json:"old_status"`
	NewStatus string `json:"new_status"`
	Warning   string `json:"warning,omitempty"`
}

// Skip is a reference the delivery could not act on, and why.
type Skip struct {
	TicketRef string `json:"ticket_ref"`
	Reason    string `json:"reason"`
}

func result(status, reason string) Result {
	return Result{Status: status, Reason: reason, TicketRefsFound: []string{}, Transitions: []Transition{}, Skipped: []Skip{}}
}

// pullRequestEvent is the part of GitHub's pull_request payload read here.
type pullRequestEvent struct {
	Action      string `json:"action"`
	PullRequest *struct {
		Title   string `json:"title"`
		Merged  bool   `json:"merged"`
		HTMLURL string `json:"html_url"`
		Head    struct {
			Ref string `json:"ref"`
		} `json:"head"`
	} `json:"pull_request"`
	Repository struct {
		FullName string `json:"full_name"`
	} `json:"repository"`
	Sender struct {
		Login string `json:"login"`
	} `json:"sender"`
}

// target is the status a pull request action moves tickets to: a name
// matched loosely, else the first status of the category.
type target struct{ name, category string }

var (
	toInReview   = target{"In Review", statusflow.CategoryInProgress}
	toDone       = target{"Done", statusflow.CategoryDone}
	toInProgress = target{"In Progress", statusflow.CategoryInProgress}
)

func targetOf(ev pullRequestEvent) (target, bool) {
	switch ev.Action {
	case "opened", "reopened":
		return toInReview, true
	case "closed":
		if ev.PullRequest.Merged {
			return toDone, true
		}
		return toInProgress, true
	}
	return target{}, false
}

// norm folds a status name for matching: case, spaces, '-' and '_' ignored,
// so "In Review" matches the Default workflow's "InReview".
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, strings.ToLower(s))
}

// pick is the workflow's status for t, or false if none fits.
func pick(r statusflow.Rules, t target) (string, bool) {
	for _, s := range r.Statuses {
		if norm(s.Name) == norm(t.name) {
			return s.Name, true
		}
	}
	for _, s := range r.Statuses {
		if s.Category == t.category {
			return s.Name, true
		}
	}
	return "", false
}

// MaxDeliveryID bounds X-Codehost-Delivery.
const MaxDeliveryID = 200

// Handle verifies a delivery on its raw bytes before anything else, then
// processes it. A signature failure is 401 and changes nothing.
func (s *Service) Handle(ctx context.Context, d Delivery) (Result, error) {
	scope, conn, err := s.authenticate(ctx, d)
	if err != nil {
		return Result{}, err
	}
	switch d.Event {
	case "ping":
		return result("ok", ""), nil
	case "pull_request":
	default:
		return result("ignored", "event "+quoteEvent(d.Event)+" is not handled"), nil
	}
	if len(d.DeliveryID) > MaxDeliveryID {
		return Result{}, domain.BadRequest("X-Codehost-Delivery: at most 200 characters")
	}
	var ev pullRequestEvent
	if err := json.Unmarshal(d.Body, &ev); err != nil {
		return Result{}, domain.BadRequest("malformed JSON body")
	}
	if err := domain.JSONNames(d.Body, reflect.TypeOf(ev)); err != nil {
		return Result{}, err
	}
	if ev.PullRequest == nil {
		return Result{}, domain.BadRequest("pull_request event without a pull_request object")
	}
	to, ok := targetOf(ev)
	if !ok {
		return result("ignored", "pull_request action "+quoteEvent(ev.Action)+" moves no ticket"), nil
	}
	repo := strings.ToLower(ev.Repository.FullName)
	if conn != nil && len(conn.Repositories) > 0 && !contains(conn.Repositories, repo) {
		return result("ignored", "repository "+quoteEvent(ev.Repository.FullName)+" is not in this connection's allowlist"), nil
	}
	refs := ParseRefs(ev.PullRequest.Title, ev.PullRequest.Head.Ref)
	var out Result
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		out = result("processed", "")
		var orgID *uuid.UUID
		if conn != nil {
			orgID = &conn.OrgID
		}
		if d.DeliveryID != "" {
			fresh, stored, err := codehostdb.Claim(ctx, q, scope, d.DeliveryID, orgID, s.Clock.Now())
			if err != nil {
				return err
			}
			if !fresh {
				if err := json.Unmarshal(stored, &out); err != nil {
					return err
				}
				out.Status = "duplicate"
				return nil
			}
		}
		by := ticket.Actor{ID: UserID, Via: map[string]any{"integration": "codehost", "event": "pull_request",
			"action": ev.Action, "merged": ev.PullRequest.Merged, "pull_request_url": ev.PullRequest.HTMLURL,
			"repository": ev.Repository.FullName, "sender": ev.Sender.Login, "delivery_id": d.DeliveryID}}
		for _, r := range refs {
			out.TicketRefsFound = append(out.TicketRefsFound, r.String())
			if err := s.moveRef(ctx, q, by, conn, r, to, &out); err != nil {
				return err
			}
		}
		if d.DeliveryID != "" {
			b, err := json.Marshal(out)
			if err != nil {
				return err
			}
			return codehostdb.Complete(ctx, q, scope, d.DeliveryID, b)
		}
		return nil
	})
	return out, err
}

// resolveOrg finds the org a reference names. Through a connection's URL
// only the connection's org is looked in: the repository's admin chose it
// by setting that URL and secret. Through the service-wide URL the key is
// looked up in every org, as the spec says, and a key held by more than one
// org is ambiguous; an org with a connection of its own is never moved from
// there (it answers as for a key nobody holds), so a service-wide delivery
// never reaches a per-org connection, and listing a repository in a
// connection claims nothing: only the repository's webhook settings do.
func resolveOrg(ctx context.Context, q store.Querier, conn *codehostdb.Connection, key string) (uuid.UUID, string, error) {
	var within []uuid.UUID
	if conn != nil {
		within = []uuid.UUID{conn.OrgID}
	}
	orgs, err := ticketdb.OrgsWithKey(ctx, q, key, within)
	if err != nil {
		return uuid.Nil, "", err
	}
	switch {
	case len(orgs) == 0:
		return uuid.Nil, "no project with key " + key, nil
	case len(orgs) > 1:
		return uuid.Nil, "ambiguous: project key " + key + " exists in several organizations; connect the repository to one organization", nil
	}
	if conn == nil {
		connected, err := codehostdb.HasConnection(ctx, q, orgs[0])
		if err != nil || connected {
			return uuid.Nil, "no project with key " + key, err
		}
	}
	return orgs[0], "", nil
}

func (s *Service) moveRef(ctx context.Context, q store.Querier, by ticket.Actor, conn *codehostdb.Connection, r Ref, to target, out *Result) error {
	skip := func(reason string) { out.Skipped = append(out.Skipped, Skip{TicketRef: r.String(), Reason: reason}) }
	orgID, reason, err := resolveOrg(ctx, q, conn, r.Key)
	if err != nil {
		return err
	}
	if reason != "" {
		skip(reason)
		return nil
	}
	t, err := ticketdb.ForChangeByKey(ctx, q, orgID, r.Key, r.Number)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			skip("no ticket " + r.String())
			return nil
		}
		return err
	}
	rules, err := s.Tickets.RulesFor(t)
	if err != nil {
		return err
	}
	status, ok := pick(rules, to)
	if !ok {
		skip("workflow " + rules.Name + " has no status for " + to.name)
		return nil
	}
	if err := accountdb.EnsureSystemUser(ctx, q, UserID, userEmail, userName); err != nil {
		return err
	}
	moved, err := s.Tickets.MoveAs(ctx, q, by, t, status)
	if reason, failed := ticket.RuleFailure(err); failed {
		skip(reason)
		return nil
	}
	if err != nil {
		return err
	}
	out.Transitions = append(out.Transitions, Transition{TicketRef: r.String(), OldStatus: t.Row.Status,
		NewStatus: moved.Status, Warning: moved.Warning})
	return nil
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// quoteEvent quotes a client-supplied name for a message, bounded.
func quoteEvent(s string) string {
	if len(s) > 64 {
		s = s[:64]
	}
	return `"` + s + `"`
}

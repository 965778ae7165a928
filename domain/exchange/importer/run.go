package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/domain/notification"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/objectstore"
)

// ErrPermanent marks a step that can never succeed (a stored document that
// no longer decodes, a reference the database refuses): the workflow stops
// retrying and the import fails with the message.
var ErrPermanent = errors.New("import cannot proceed")

// Runner performs the steps of imports; the Import workflow's activities
// call it. Each step locks the import's row, checks what is done already,
// and commits its rows together with the progress mark, so running a step
// twice (a retry, a resumed workflow) never creates anything twice.
type Runner struct {
	DB *store.DB
	// BatchSize is the tickets per batch (default 2000).
	BatchSize int
	clock     domain.Clock
	files     objectstore.Store
}

// NewRunner builds the runner on db, telling the time by clock, reading
// uploaded files from files; batchSize 0 is the default.
func NewRunner(db *store.DB, clock domain.Clock, batchSize int, files objectstore.Store) *Runner {
	return &Runner{DB: db, BatchSize: batchSize, clock: clock, files: files}
}

func (r *Runner) now() time.Time { return r.clock.Now() }

// Step is where an import stands after a step.
type Step struct {
	Status       string
	Stage        string
	TicketsTotal int
	NextSeq      int
	Counts       importdb.Counts
	Done         bool // every ticket is processed
}

// Stopped tells whether the import ended without completing (cancelled by
// an Admin, or failed): the workflow stops at once.
func (s Step) Stopped() bool {
	return s.Status == importdb.StatusCancelled || s.Status == importdb.StatusFailed
}

func stepOf(r importdb.Row) Step {
	return Step{Status: r.Status, Stage: r.Stage, TicketsTotal: r.TicketsTotal, NextSeq: r.NextSeq, Counts: r.Counts,
		Done: r.Stage == importdb.StageDone || (r.Stage == importdb.StageTickets || r.Stage == importdb.StageCatalog) && r.NextSeq > r.TicketsTotal}
}

// staged is one staged ticket.
type staged struct {
	Project string        `json:"p"`
	Ticket  export.Ticket `json:"t"`
}

func permanent(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrPermanent, fmt.Sprintf(format, args...))
}

// Stage writes the import as rows once: item 0 is the catalog (the
// document without tickets, plus every user the tickets name), items 1..n
// the tickets. A Tracker document is decoded from the imports row; a file
// of another format is converted again from its object, streamed, and its
// object dropped once staged.
func (r *Runner) Stage(ctx context.Context, id uuid.UUID) (Step, error) {
	var out Step
	var done importdb.Row
	err := r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return domain.NotFoundAs(err, "import")
		}
		if row.Stage != importdb.StageQueued || importdb.Finished(row.Status) {
			out = stepOf(row)
			return nil
		}
		var total int
		if row.File != nil {
			total, err = r.stageFile(ctx, q, row)
		} else {
			total, err = stageDocument(ctx, q, id)
		}
		if err != nil {
			return err
		}
		if err := importdb.Progress(ctx, q, id, importdb.StageStaged, total, 1, importdb.Counts{}, r.now()); err != nil {
			return err
		}
		done = row
		out = Step{Status: importdb.StatusRunning, Stage: importdb.StageStaged, TicketsTotal: total, NextSeq: 1}
		return nil
	})
	if err == nil {
		// The staged items hold the file now. A failed drop leaves the
		// object for Finish, Fail or Cancel to drop.
		_ = dropFile(ctx, r.files, done)
	}
	return out, err
}

// stageDocument stages the stored Tracker document; it answers the
// tickets staged.
func stageDocument(ctx context.Context, q store.Querier, id uuid.UUID) (int, error) {
	body, err := importdb.Document(ctx, q, id)
	if err != nil {
		return 0, err
	}
	var doc export.Document
	if err := json.Unmarshal(body, &doc); err != nil {
		return 0, permanent("stored document does not decode: %v", err)
	}
	payloads, err := stageItems(doc)
	if err != nil {
		return 0, err
	}
	if err := importdb.ReplaceItems(ctx, q, id, payloads); err != nil {
		return 0, err
	}
	return len(payloads) - 1, nil
}

func stageItems(doc export.Document) ([][]byte, error) {
	listed := map[string]bool{}
	for _, u := range doc.Users {
		listed[strings.ToLower(u.Email)] = true
	}
	mention := func(e *string) {
		if e != nil && !listed[strings.ToLower(*e)] {
			listed[strings.ToLower(*e)] = true
			doc.Users = append(doc.Users, export.User{Email: *e})
		}
	}
	payloads := [][]byte{nil}
	catalog := doc
	catalog.Projects = make([]export.Project, len(doc.Projects))
	for i, p := range doc.Projects {
		for j := range p.Members {
			mention(&p.Members[j])
		}
		for _, t := range p.Tickets {
			mention(&t.Reporter)
			mention(t.Assignee)
			for _, c := range t.Comments {
				mention(&c.Author)
			}
			// An entry's approver is text (the importing admin approves),
			// never an account.
			for _, e := range t.TimeEntries {
				mention(&e.User)
			}
			b, err := json.Marshal(staged{Project: p.Key, Ticket: t})
			if err != nil {
				return nil, err
			}
			payloads = append(payloads, b)
		}
		p.Tickets = nil
		catalog.Projects[i] = p
	}
	catalog.Users = doc.Users
	b, err := json.Marshal(catalog)
	if err != nil {
		return nil, err
	}
	payloads[0] = b
	return payloads, nil
}

// Finish sets the parents and writes the links the tickets carry (once
// every ticket is in: either end may come in any batch), marks the import
// completed (dropping its document and staged items) and returns its final
// state, all in one transaction.
func (r *Runner) Finish(ctx context.Context, id uuid.UUID) (Step, error) {
	var out Step
	var done importdb.Row
	err := r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return domain.NotFoundAs(err, "import")
		}
		if !importdb.Finished(row.Status) {
			rel, err := r.relations(ctx, q, row)
			if err != nil {
				return err
			}
			if rel != (importdb.Counts{}) {
				if err := importdb.Progress(ctx, q, id, row.Stage, row.TicketsTotal, row.NextSeq, row.Counts.Add(rel), r.now()); err != nil {
					return err
				}
			}
			if err := importdb.Complete(ctx, q, id, r.now()); err != nil {
				return err
			}
			if row, err = importdb.Get(ctx, q, id); err != nil {
				return err
			}
			if err := r.notifyFinished(ctx, q, row, ""); err != nil {
				return err
			}
		}
		out = stepOf(row)
		done = row
		return nil
	})
	if err == nil {
		_ = dropFile(ctx, r.files, done)
	}
	return out, err
}

// notifyFinished tells whoever started an import that it ended (why, when
// it failed).
func (r *Runner) notifyFinished(ctx context.Context, q store.Querier, row importdb.Row, failure string) error {
	if row.RequestedBy == nil {
		return nil
	}
	excerpt := "Import from " + row.Source + " completed"
	if failure != "" {
		excerpt = "Import from " + row.Source + " failed: " + failure
	}
	ev := notification.Event{OrgID: row.OrgID, Excerpt: excerpt, At: r.now()}
	ev.Tell(*row.RequestedBy, notification.TypeImportFinished)
	return notification.Emit(ctx, q, ev)
}

// Fail marks the import failed with the reason (a cancelled or completed
// import stays as it is).
func (r *Runner) Fail(ctx context.Context, id uuid.UUID, reason string) error {
	return r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		_ = dropFile(ctx, r.files, row) // best effort: an import ends whatever the store says
		if err := importdb.Fail(ctx, q, id, []string{reason}, r.now()); err != nil {
			return err
		}
		if importdb.Finished(row.Status) {
			return nil // told when it finished
		}
		return r.notifyFinished(ctx, q, row, reason)
	})
}

// Cancel marks the import cancelled unless it already finished: its
// workflow was cancelled in Temporal, not through the API.
func (r *Runner) Cancel(ctx context.Context, id uuid.UUID) error {
	return r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return err
		}
		_ = dropFile(ctx, r.files, row) // best effort: an import ends whatever the store says
		if importdb.Finished(row.Status) {
			return nil
		}
		return importdb.Cancel(ctx, q, id, nil, r.now())
	})
}

// RunAll runs every step of an import in this process, without Temporal
// (tests, tools).
func (r *Runner) RunAll(ctx context.Context, id uuid.UUID) (Step, error) {
	if _, err := r.Stage(ctx, id); err != nil {
		return Step{}, err
	}
	st, err := r.Catalog(ctx, id)
	for err == nil && !st.Done {
		st, err = r.Batch(ctx, id)
	}
	if err != nil {
		return st, err
	}
	return r.Finish(ctx, id)
}

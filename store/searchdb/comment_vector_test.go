package searchdb_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/commentdb"
	"tracker/store/storetest"
	"tracker/store/ticketdb"
)

// straightVector is the search vector of each ticket written out from its
// columns and comments (title A, description B, every comment by id C):
// what the triggers must keep, whatever statements wrote the comments.
const straightVector = `SELECT setweight(to_tsvector('english', coalesce(t.title, '')), 'A')
	|| setweight(to_tsvector('english', coalesce(t.description, '')), 'B')
	|| setweight(to_tsvector('english', coalesce(
	       (SELECT string_agg(c.body, ' ' ORDER BY c.id) FROM comments c WHERE c.ticket_id = t.id), '')), 'C')
	FROM tickets t WHERE t.id = x.id`

// vectorsDrift counts the tickets whose stored vector differs from the
// straight aggregation.
func vectorsDrift(t *testing.T, q store.Querier) int {
	t.Helper()
	var n int
	if err := q.QueryRow(context.Background(), `SELECT count(*) FROM tickets x
	    WHERE x.search_vector IS DISTINCT FROM (`+straightVector+`)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// ticketUpdates is the number of ticket rows the current transaction has
// updated so far (the statistics of the transaction itself, read at once).
func ticketUpdates(t *testing.T, tx pgx.Tx) int64 {
	t.Helper()
	var n int64
	if err := tx.QueryRow(context.Background(), `SELECT n_tup_upd FROM pg_stat_xact_user_tables
	    WHERE relid = 'tickets'::regclass`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

type commentWorld struct {
	db      *store.DB
	orgID   uuid.UUID
	author  uuid.UUID
	tickets []ticketdb.Row
}

func newCommentWorld(t testing.TB, tickets int) commentWorld {
	db := storetest.New(t)
	u := testfactory.User(t, db, testfactory.UserOpts{})
	org := testfactory.Org(t, db, u.ID, testfactory.OrgOpts{})
	p := testfactory.Project(t, db, org.ID, testfactory.ProjectOpts{})
	w := commentWorld{db: db, orgID: org.ID, author: u.ID}
	for i := range tickets {
		w.tickets = append(w.tickets, testfactory.Ticket(t, db, p, u.ID, testfactory.TicketOpts{Title: fmt.Sprintf("ticket %d about invoices", i)}))
	}
	return w
}

// comments are n comments spread over the tickets, round robin.
func (w commentWorld) comments(n int, tickets ...ticketdb.Row) []commentdb.Row {
	now := time.Now().UTC()
	out := make([]commentdb.Row, n)
	for i := range out {
		out[i] = commentdb.Row{ID: domain.NewID(), OrgID: w.orgID, TicketID: tickets[i%len(tickets)].ID, AuthorID: w.author,
			Content: commentdb.Content{Body: fmt.Sprintf("comment %d mentions the frobnicator", i)}, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	}
	return out
}

// A statement that writes many comments refreshes each ticket it touches
// once (not once per comment, which made an import quadratic in the
// comments of a ticket), and every ticket's vector is then exactly the
// straight aggregation of its title, description and comments: after a
// multi-row insert (an import's batch), multi-row edits, a move of
// comments to another ticket, an update that changes neither body nor
// ticket, and a multi-row delete.
func TestCommentVectorIsRefreshedOncePerStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newCommentWorld(t, 4)
	a, b, c, d := w.tickets[0], w.tickets[1], w.tickets[2], w.tickets[3]
	if _, err := w.db.Q().Exec(ctx, `UPDATE tickets SET description = 'the ledger' WHERE id = $1`, d.ID); err != nil {
		t.Fatal(err)
	}

	step := func(name string, wantUpdates int64, sql func(tx pgx.Tx) error) {
		t.Helper()
		tx, err := w.db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback(ctx) }()
		before := ticketUpdates(t, tx)
		if err := sql(tx); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := ticketUpdates(t, tx) - before; got != wantUpdates {
			t.Errorf("%s: %d ticket rows updated, want %d (one per touched ticket)", name, got, wantUpdates)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if n := vectorsDrift(t, w.db.Q()); n != 0 {
			t.Fatalf("%s: %d tickets' vectors differ from the straight aggregation", name, n)
		}
	}

	step("insert 200 comments on two tickets in one statement", 2, func(tx pgx.Tx) error {
		return commentdb.InsertMany(ctx, tx, w.comments(200, a, b))
	})
	step("insert 50 comments on a third", 1, func(tx pgx.Tx) error {
		return commentdb.InsertMany(ctx, tx, w.comments(50, c))
	})
	step("edit every comment of one ticket", 1, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE comments SET body = body || ' zebra' WHERE ticket_id = $1`, a.ID)
		return err
	})
	step("move half of b's comments to d", 2, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE comments SET ticket_id = $2
		    WHERE id IN (SELECT id FROM comments WHERE ticket_id = $1 ORDER BY id LIMIT 50)`, b.ID, d.ID)
		return err
	})
	step("touch neither body nor ticket", 0, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `UPDATE comments SET updated_at = updated_at + interval '1 second' WHERE ticket_id = $1`, c.ID)
		return err
	})
	step("delete every comment of two tickets", 2, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `DELETE FROM comments WHERE ticket_id = ANY($1)`, []uuid.UUID{b.ID, c.ID})
		return err
	})

	// The vectors carry the comments' words where the comments are.
	var found []uuid.UUID
	rows, err := w.db.Q().Query(ctx, `SELECT id FROM tickets WHERE search_vector @@ to_tsquery('english', 'zebra | frobnicator') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	found, err = pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 2 || found[0] != a.ID || found[1] != d.ID {
		t.Fatalf("tickets with comment words %v, want a %s and d %s", found, a.ID, d.ID)
	}
}

// BenchmarkImportCommentsOnOneTicket inserts n comments of one ticket in
// one statement, as an import's batch does (rolled back each time).
func BenchmarkImportCommentsOnOneTicket(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			w := newCommentWorld(b, 1)
			for b.Loop() {
				cs := w.comments(n, w.tickets[0])
				tx, err := w.db.Pool.Begin(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := commentdb.InsertMany(ctx, tx, cs); err != nil {
					b.Fatal(err)
				}
				_ = tx.Rollback(ctx)
			}
		})
	}
}

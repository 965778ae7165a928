package capexdb

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// EntryRow is one approved entry behind a report line, priced as the
// report prices it, with its user's name and its ticket's ref and title.
type EntryRow struct {
	ID           uuid.UUID `db:"id"`
	UserID       uuid.UUID `db:"user_id"`
	DisplayName  string    `db:"display_name"`
	TicketID     uuid.UUID `db:"ticket_id"`
	TicketRef    string    `db:"ticket_ref"`
	TicketTitle  string    `db:"ticket_title"`
	ProjectID    uuid.UUID `db:"project_id"`
	Date         time.Time `db:"date"`
	Minutes      int64     `db:"duration_minutes"`
	ActivityType string    `db:"activity_type"`
	RateCents    *int64    `db:"rate_cents"` // nil: no rate in effect (priced at 0)
	AmountCents  int64     `db:"amount_cents"`
}

// EntrySource says where entries are read: live (zero value), or a closed
// period's snapshot with the columns frozen at close.
type EntrySource struct {
	CloseID uuid.UUID
	Frozen  *Frozen
}

// EachEntry calls fn with the entries f selects, in id order after after
// (uuid.Nil: from the start), at most limit of them (0: all). Rows are
// read one at a time, so a long export never holds them all. All of them
// (limit 0) are read through a cursor, so q must be a transaction
// (store.DB.ReadOnly): each batch is a statement of its own and the
// statement timeout bounds a batch, not the whole stream, whose pace is
// the client's.
func EachEntry(ctx context.Context, q store.Querier, src EntrySource, f Filter, after uuid.UUID, limit int, fn func(EntryRow) error) error {
	var a args
	org := a.add(f.OrgID)
	var sql string
	if src.CloseID != uuid.Nil {
		if src.Frozen != nil {
			f = closedFilter(f, *src.Frozen)
		}
		sql = `SELECT te.id, te.user_id, te.ticket_id, te.project_id, te.date, te.duration_minutes::bigint AS duration_minutes,
		       te.activity_type, te.rate_cents, te.amount_cents,`
	} else {
		if limit == 0 { // every entry: the rates as intervals, hash-joined once
			sql = `WITH ` + ratesCTE(org)
		}
		sql += `
		SELECT te.id, te.user_id, te.ticket_id, te.project_id, te.date, te.duration_minutes::bigint AS duration_minutes,
		       te.activity_type, r.loaded_rate_cents AS rate_cents,
		       (te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0) * 2 + 60) / 120 AS amount_cents,`
	}
	sql += `
		       COALESCE(u.display_name, '') AS display_name,
		       COALESCE(tp.key || '-' || t.ticket_number, '') AS ticket_ref, COALESCE(t.title, '') AS ticket_title`
	if src.CloseID != uuid.Nil {
		sql += `
		FROM period_close_entries te`
	} else if limit == 0 {
		sql += `
		FROM time_entries te ` + rateJoin
	} else { // one page: the rate of each of its entries, looked up by index
		sql += `
		FROM time_entries te
		LEFT JOIN LATERAL (SELECT lr.loaded_rate_cents FROM labor_rates lr
			WHERE lr.org_id = te.org_id AND lr.user_id = te.user_id AND lr.effective_date <= te.date
			ORDER BY lr.effective_date DESC LIMIT 1) r ON true`
	}
	sql += `
		LEFT JOIN users u ON u.id = te.user_id
		LEFT JOIN tickets t ON t.id = te.ticket_id
		LEFT JOIN projects tp ON tp.id = t.project_id
		WHERE `
	if src.CloseID != uuid.Nil {
		sql += `te.close_id = ` + a.add(src.CloseID) + ` AND `
	}
	sql += f.where(&a, org)
	if after != uuid.Nil {
		sql += ` AND te.id > ` + a.add(after)
	}
	sql += ` ORDER BY te.id`
	if limit > 0 {
		sql += ` LIMIT ` + a.add(limit)
	}
	if limit == 0 {
		return eachByCursor(ctx, q, sql, a, fn)
	}
	_, err := scanEntries(ctx, q, sql, a, fn)
	return err
}

// entryBatch is the rows one FETCH of the drill-down's cursor reads.
const entryBatch = 5000

// eachByCursor reads sql's rows through a cursor of q's transaction,
// entryBatch rows a statement.
func eachByCursor(ctx context.Context, q store.Querier, sql string, a args, fn func(EntryRow) error) error {
	if _, err := q.Exec(ctx, `DECLARE entries NO SCROLL CURSOR FOR `+sql, a...); err != nil {
		return store.Translate(err)
	}
	for {
		n, err := scanEntries(ctx, q, `FETCH `+strconv.Itoa(entryBatch)+` FROM entries`, nil, fn)
		if err != nil {
			return err
		}
		if n < entryBatch {
			break
		}
	}
	_, err := q.Exec(ctx, `CLOSE entries`)
	return store.Translate(err)
}

// scanEntries runs sql and calls fn with each row; it returns the rows read.
func scanEntries(ctx context.Context, q store.Querier, sql string, a args, fn func(EntryRow) error) (int, error) {
	rows, err := q.Query(ctx, sql, a...)
	if err != nil {
		return 0, store.Translate(err)
	}
	defer rows.Close()
	var r EntryRow
	n := 0
	for rows.Next() {
		n++
		// Scanned by position (the SELECT's order): no reflection per row.
		r.RateCents = nil
		if err := rows.Scan(&r.ID, &r.UserID, &r.TicketID, &r.ProjectID, &r.Date, &r.Minutes, &r.ActivityType,
			&r.RateCents, &r.AmountCents, &r.DisplayName, &r.TicketRef, &r.TicketTitle); err != nil {
			return n, store.Translate(err)
		}
		if err := fn(r); err != nil {
			return n, err
		}
	}
	return n, store.Translate(rows.Err())
}

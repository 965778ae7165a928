package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/outboxdb"
)

const outboxUsage = "usage: tracker outbox dead [LIMIT] | tracker outbox retry ID"

// outboxCommand is the operator's view of parked outbox rows (rows the relay
// gave up on after SERVICE_OUTBOX_MAX_ATTEMPTS failures, or at once for a
// permanent error):
//
//	tracker outbox dead [LIMIT]   list them, most recently parked first (default 100)
//	tracker outbox retry ID       offer one again with a fresh count of attempts
func outboxCommand(ctx context.Context, databaseURL string, args []string, out io.Writer) error {
	if len(args) == 0 {
		return errors.New(outboxUsage)
	}
	db, err := store.Open(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer db.Close()
	switch {
	case args[0] == "dead" && len(args) <= 2:
		limit := 100
		if len(args) == 2 {
			if _, err := fmt.Sscan(args[1], &limit); err != nil || limit < 1 {
				return errors.New(outboxUsage)
			}
		}
		rows, err := outboxdb.Dead(ctx, db.Q(), limit)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tORG\tTOPIC\tATTEMPTS\tCREATED\tPARKED\tLAST ERROR")
		for _, r := range rows {
			lastErr := ""
			if r.LastError != nil {
				lastErr = strings.ReplaceAll(*r.LastError, "\n", " ")
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, r.OrgID, r.Topic, r.Attempts,
				r.CreatedAt.UTC().Format(time.RFC3339), r.DeadAt.UTC().Format(time.RFC3339), lastErr)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		fmt.Fprintf(out, "%d dead outbox row(s)\n", len(rows))
		return nil
	case args[0] == "retry" && len(args) == 2:
		id, err := uuid.Parse(args[1])
		if err != nil {
			return fmt.Errorf("outbox retry: %q is not an outbox row id", args[1])
		}
		if err := outboxdb.Retry(ctx, db.Q(), id); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("outbox retry: no dead outbox row %s", id)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(out, "outbox row %s is pending again; a relay dispatches it within seconds\n", id)
		return nil
	}
	return errors.New(outboxUsage)
}

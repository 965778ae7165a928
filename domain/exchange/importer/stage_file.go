package importer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/google/uuid"

	"tracker/domain/exchange/export"
	"tracker/domain/exchange/sources"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/objectstore"
)

// stageBatch is how many converted tickets a file's staging holds before
// it copies them into import_items.
const stageBatch = 2000

// stageFile converts the import's uploaded file again, reading the object
// as a stream, and stages its tickets a batch at a time (items 1..n, in
// file order), then the catalog (item 0): memory holds the conversion's
// index and one batch, never the file. It answers the tickets staged. It
// runs in Stage's transaction, which first drops what an earlier attempt
// staged, so a retry never duplicates an item.
func (r *Runner) stageFile(ctx context.Context, q store.Querier, row importdb.Row) (int, error) {
	var spec fileSpec
	if err := json.Unmarshal(row.File, &spec); err != nil || spec.Object == "" {
		return 0, permanent("the import's file does not decode: %v", err)
	}
	if r.files == nil {
		return 0, errors.New("importer: no object store for import files")
	}
	var by uuid.UUID
	if row.RequestedBy != nil {
		by = *row.RequestedBy
	}
	t, err := targetOf(ctx, q, row.OrgID, by, spec.ProjectKey, row.CreatedAt)
	if err != nil {
		return 0, err
	}
	if err := importdb.DeleteItems(ctx, q, row.ID); err != nil {
		return 0, err
	}
	open := func() (io.ReadCloser, error) {
		rc, err := r.files.Get(ctx, spec.Object)
		if errors.Is(err, objectstore.ErrNotFound) {
			return nil, permanent("the uploaded file %s is no longer stored", spec.Object)
		}
		return rc, err
	}
	mentioned := map[string]bool{}
	mention := func(e *string) {
		if e != nil && *e != "" {
			mentioned[strings.ToLower(*e)] = true
		}
	}
	seq := 1
	batch := make([][]byte, 0, stageBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if err := importdb.CopyItems(ctx, q, row.ID, seq, batch); err != nil {
			return err
		}
		seq += len(batch)
		batch = batch[:0]
		return nil
	}
	conv, err := sources.Convert(row.Format, open, spec.Mapping, t, func(project string, tk export.Ticket) error {
		mention(&tk.Reporter)
		mention(tk.Assignee)
		for i := range tk.Comments {
			mention(&tk.Comments[i].Author)
		}
		b, err := json.Marshal(staged{Project: project, Ticket: tk})
		if err != nil {
			return err
		}
		batch = append(batch, b)
		if len(batch) == stageBatch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	if err := flush(); err != nil {
		return 0, err
	}
	catalog := conv.Catalog
	for _, u := range catalog.Users {
		delete(mentioned, strings.ToLower(u.Email))
	}
	for _, e := range sortedSet(mentioned) {
		catalog.Users = append(catalog.Users, export.User{Email: e})
	}
	for i := range catalog.Projects {
		catalog.Projects[i].Tickets = nil
	}
	b, err := json.Marshal(catalog)
	if err != nil {
		return 0, err
	}
	if err := importdb.CopyItems(ctx, q, row.ID, 0, [][]byte{b}); err != nil {
		return 0, err
	}
	return seq - 1, nil
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/sources"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
)

// File is an export of another tracker (or a Tracker document) submitted
// as a file: POST /orgs/{org_id}/imports.
type File struct {
	Format     string
	ProjectKey string
	Mapping    sources.Mapping
	DryRun     bool
	Body       io.Reader
	// Limit caps the bytes of a tracker_json document read whole.
	Limit int64
}

// Submitted is the answer to a file: the dry run's report, or the import
// recorded.
type Submitted struct {
	Report   *sources.Report
	ImportID uuid.UUID
}

// SubmitFile authorizes (Admin of the org; a project-restricted key
// cannot), converts the file and either answers the dry run's report,
// writing nothing, or records the import as Submit does, with the format
// and the report kept for GET /imports/{id}.
func (s *Service) SubmitFile(ctx context.Context, p domain.Principal, orgID uuid.UUID, f File) (Submitted, error) {
	access, err := domain.OrgAccess(ctx, s.DB.Q(), p, orgID, domain.RoleAdmin, "organization")
	if err != nil {
		return Submitted{}, err
	}
	if f.Format == "tracker_json" {
		if f.DryRun {
			return Submitted{}, domain.Invalid("dry_run: is for the formats of other trackers, not tracker_json")
		}
		body, err := io.ReadAll(io.LimitReader(f.Body, f.Limit+1))
		var de *domain.Error
		if errors.As(err, &de) {
			return Submitted{}, err // the body's own limit: a 413
		}
		if err != nil {
			return Submitted{}, domain.BadRequest("could not read the file")
		}
		if int64(len(body)) > f.Limit {
			return Submitted{}, domain.Invalidf("file: larger than %d bytes", f.Limit)
		}
		id, err := s.Submit(ctx, p, orgID, body)
		return Submitted{ImportID: id}, err
	}
	if !slices.Contains(sources.Formats, f.Format) {
		return Submitted{}, domain.Invalid("format: must be one of " + strings.Join(sources.Formats, ", "))
	}
	t, err := targetOf(ctx, s.DB.Q(), orgID, p.UserID, f.ProjectKey, s.now())
	if err != nil {
		return Submitted{}, err
	}
	upload, err := spooled(f.Body)
	if err != nil {
		return Submitted{}, err
	}
	defer upload.close()
	// One streaming pass validates the file (the format's problems are a
	// 422 naming the first) and makes the report; the tickets are checked
	// against the API's caps and dropped.
	var bounds []string
	conv, err := sources.Convert(f.Format, upload.open, f.Mapping, t, func(project string, tk export.Ticket) error {
		if len(bounds) < MaxProblems {
			domain.CheckBounds(tk, func(path, problem string) bool {
				bounds = append(bounds, fmt.Sprintf("%s-%d%s: %s", project, tk.Number, path, problem))
				return len(bounds) < MaxProblems
			})
		}
		return nil
	})
	if err != nil {
		return Submitted{}, err
	}
	if f.DryRun {
		return Submitted{Report: &conv.Report}, nil
	}
	if conv.Report.Summary.Tickets == 0 {
		return Submitted{}, domain.Invalid(append([]string{"file: no issue can be imported"}, firstProblems(conv.Report.Problems)...)...)
	}
	if len(bounds) > 0 {
		return Submitted{}, domain.Invalid(bounds...)
	}
	// The catalog (users, labels, fields, projects) as a Tracker
	// document's would be.
	problems, err := validate(ctx, decoded{doc: conv.Catalog, complete: true}, known{q: s.DB.Q(), orgID: orgID})
	if err != nil {
		return Submitted{}, err
	}
	if len(problems) > 0 {
		return Submitted{}, domain.Invalid(problems...)
	}
	report, err := json.Marshal(conv.Report)
	if err != nil {
		return Submitted{}, err
	}
	id, err := s.submitFile(ctx, p, access, orgID, f, upload, conv, report)
	return Submitted{ImportID: id}, err
}

func firstProblems(ps []sources.Problem) []string {
	var out []string
	for i, p := range ps {
		if i == 20 {
			break
		}
		b, _ := json.Marshal(p)
		out = append(out, string(b))
	}
	return out
}

// targetOf reads what a conversion needs of the org: the statuses of the
// workflow the project would use, its members, the importer's email.
func targetOf(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, key string, now time.Time) (sources.Target, error) {
	t := sources.Target{ProjectKey: strings.ToUpper(strings.TrimSpace(key)), Now: now}
	raw, err := importdb.TargetStatuses(ctx, q, orgID, t.ProjectKey)
	if err != nil {
		return t, err
	}
	var sts []statusflow.Status
	if raw != nil {
		if err := json.Unmarshal(raw, &sts); err != nil {
			return t, err
		}
	} else {
		sts = statusflow.DefaultStatuses()
	}
	for _, st := range sts {
		t.Statuses = append(t.Statuses, sources.Status{Name: st.Name, Category: st.Category})
	}
	if t.Members, err = importdb.OrgMemberEmails(ctx, q, orgID); err != nil {
		return t, err
	}
	if userID == uuid.Nil {
		return t, nil // the importer's account is gone: nobody to fall back on
	}
	if t.ImporterEmail, err = importdb.UserEmail(ctx, q, userID); err != nil {
		return t, err
	}
	return t, nil
}

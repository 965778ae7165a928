package importer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/sources"
	"tracker/domain/statusflow"
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
	t, err := s.target(ctx, p, orgID, f.ProjectKey)
	if err != nil {
		return Submitted{}, err
	}
	var res sources.Result
	switch f.Format {
	case "jira_csv":
		res, err = sources.Jira(f.Body, f.Mapping, t)
	case "github_json":
		res, err = sources.GitHub(f.Body, f.Mapping, t)
	case "linear_csv":
		res, err = sources.Linear(f.Body, f.Mapping, t)
	case "csv":
		res, err = sources.CSV(f.Body, f.Mapping, t)
	default:
		return Submitted{}, domain.Invalid("format: must be one of " + strings.Join(sources.Formats, ", "))
	}
	if err != nil {
		return Submitted{}, err
	}
	if f.DryRun {
		return Submitted{Report: &res.Report}, nil
	}
	if res.Report.Summary.Tickets == 0 {
		return Submitted{}, domain.Invalid(append([]string{"file: no issue can be imported"}, firstProblems(res.Report.Problems)...)...)
	}
	body, err := json.Marshal(res.Doc)
	if err != nil {
		return Submitted{}, err
	}
	report, err := json.Marshal(res.Report)
	if err != nil {
		return Submitted{}, err
	}
	id, err := s.submit(ctx, p, access, orgID, body, f.Format, report)
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

// target reads what a conversion needs of the org: the statuses of the
// workflow the project would use, its members, the importer's email.
func (s *Service) target(ctx context.Context, p domain.Principal, orgID uuid.UUID, key string) (sources.Target, error) {
	q := s.DB.Q()
	t := sources.Target{ProjectKey: strings.ToUpper(strings.TrimSpace(key)), Now: s.now()}
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
	if t.ImporterEmail, err = importdb.UserEmail(ctx, q, p.UserID); err != nil {
		return t, err
	}
	return t, nil
}

package importer

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/sources"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/objectstore"
)

// fileSpec is an import's file (the imports row's file column): the
// object holding the upload and what its conversion needs beyond the org.
type fileSpec struct {
	Object     string          `json:"object"`
	Size       int64           `json:"size"`
	Mapping    sources.Mapping `json:"mapping"`
	ProjectKey string          `json:"project_key"`
}

// FileKeyRoot is the prefix of every uploaded import file in the object
// store (attachments live under another).
const FileKeyRoot = "imports/"

// fileKey is where an import's upload is kept.
func fileKey(orgID, importID uuid.UUID, format string) string {
	return FileKeyRoot + orgID.String() + "/" + importID.String() + "/" + format
}

var contentTypes = map[string]string{"jira_csv": "text/csv", "linear_csv": "text/csv", "csv": "text/csv",
	"github_json": "application/json"}

// upload is the submitted file, on disk: a conversion reads it twice.
type upload struct {
	f    io.ReadSeeker
	size int64
	temp *os.File // a spool this package made, removed by close
}

// spooled takes the body as it is when it is a file (the API spools the
// multipart part), else copies it to a temporary file.
func spooled(body io.Reader) (*upload, error) {
	if f, ok := body.(io.ReadSeeker); ok {
		size, err := f.Seek(0, io.SeekEnd)
		if err != nil {
			return nil, err
		}
		return &upload{f: f, size: size}, nil
	}
	tmp, err := os.CreateTemp("", "import-*")
	if err != nil {
		return nil, err
	}
	u := &upload{f: tmp, temp: tmp}
	if u.size, err = io.Copy(tmp, body); err != nil {
		u.close()
		var de *domain.Error
		if errors.As(err, &de) {
			return nil, err
		}
		return nil, domain.BadRequest("could not read the file")
	}
	return u, nil
}

func (u *upload) open() (io.ReadCloser, error) {
	if _, err := u.f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return io.NopCloser(u.f), nil
}

func (u *upload) close() {
	if u.temp != nil {
		_ = u.temp.Close()
		_ = os.Remove(u.temp.Name())
	}
}

// submitFile stores the upload in the object store and records the import
// with its file, its report and the outbox row that starts its workflow.
// The object is removed again when recording fails.
func (s *Service) submitFile(ctx context.Context, p domain.Principal, access domain.Access, orgID uuid.UUID, f File,
	up *upload, conv sources.Converted, report []byte) (uuid.UUID, error) {
	if s.files == nil {
		return uuid.Nil, errors.New("importer: no object store for import files")
	}
	id := domain.NewID()
	spec := fileSpec{Object: fileKey(orgID, id, f.Format), Size: up.size, Mapping: f.Mapping, ProjectKey: f.ProjectKey}
	file, err := json.Marshal(spec)
	if err != nil {
		return uuid.Nil, err
	}
	if _, err := up.f.Seek(0, io.SeekStart); err != nil {
		return uuid.Nil, err
	}
	if err := s.files.Put(ctx, spec.Object, contentTypes[f.Format], up.size, up.f); err != nil {
		return uuid.Nil, err
	}
	role := domain.RoleAdmin
	if access.Role >= domain.RoleOwner {
		role = domain.RoleOwner
	}
	now := s.now()
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		row := importdb.Row{ID: id, OrgID: orgID, RequestedBy: &p.UserID, RequesterRole: role.DB(), Source: conv.Catalog.Source,
			CreatedAt: now, Format: f.Format, Report: report, File: file, SizeBytes: up.size}
		if err := importdb.Insert(ctx, q, row, nil); err != nil {
			return err
		}
		if err := domain.Record(ctx, q, domain.Change{At: now, OrgID: orgID, ActorID: &p.UserID, EntityType: "import",
			EntityID: id, Action: "requested"}); err != nil {
			return err
		}
		return domain.Enqueue(ctx, q, orgID, domain.NewID(), TopicImport, Job{ImportID: id, OrgID: orgID,
			Source: conv.Catalog.Source, Tickets: conv.Report.Summary.Tickets}, now)
	})
	if err != nil {
		_ = s.files.Delete(context.WithoutCancel(ctx), spec.Object)
		return uuid.Nil, err
	}
	return id, nil
}

// dropFile removes an import's uploaded file, once staged or when the
// import ends; a missing object (dropped before) is success.
func dropFile(ctx context.Context, files objectstore.Store, row importdb.Row) error {
	if row.File == nil || files == nil {
		return nil
	}
	var spec fileSpec
	if err := json.Unmarshal(row.File, &spec); err != nil || spec.Object == "" {
		return nil
	}
	return files.Delete(ctx, spec.Object)
}

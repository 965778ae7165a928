// Package customfield holds an org's custom field definitions: typed fields
// (text, number, date, select, multi_select, user, checkbox, url) that its
// tickets carry as custom_fields, keyed by the field's key. Every write is an
// Admin's; any member reads them. A project-restricted API key reads the
// definitions enabled for its projects, naming only its projects, and
// writes none.
package customfield

import (
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/customfielddb"
)

// Service runs the custom field use cases.
type Service struct {
	DB     *store.DB
	clock  domain.Clock
	inline int // see WithInlineValues
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Field types.
const (
	Text        = "text"
	Number      = "number"
	Date        = "date"
	Select      = "select"
	MultiSelect = "multi_select"
	User        = "user"
	Checkbox    = "checkbox"
	URL         = "url"
)

// Types lists the field types in the order the docs name them.
var Types = []string{Text, Number, Date, Select, MultiSelect, User, Checkbox, URL}

// Limits of a definition.
const (
	MaxOptions    = 500
	MaxOptionName = 100
	MaxName       = 100
	MaxKey        = 64
	// MaxText is the longest value of a text field, in characters.
	MaxText = 10000
)

// Option is one choice of a select or multi_select field.
type Option = customfielddb.Option

// Field is the API's custom field definition: the row as stored, with its
// times in UTC and its lists never null.
type Field struct{ customfielddb.Row }

// IsSelect reports whether the field's values are option ids.
func (f Field) IsSelect() bool { return f.Type == Select || f.Type == MultiSelect }

// EnabledFor reports whether the field applies to tickets of projectID.
func (f Field) EnabledFor(projectID uuid.UUID) bool {
	if len(f.ProjectIDs) == 0 {
		return true
	}
	for _, id := range f.ProjectIDs {
		if id == projectID {
			return true
		}
	}
	return false
}

// ToField renders a stored definition.
func ToField(r customfielddb.Row) Field {
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if r.Options == nil {
		r.Options = []Option{}
	}
	if r.ProjectIDs == nil {
		r.ProjectIDs = []uuid.UUID{}
	}
	return Field{Row: r}
}

package capex

import (
	"fmt"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/timeentry"
	"tracker/store/capexdb"
)

// Grouping modes of the report.
const (
	GroupNone = ""
	GroupTeam = "team"
	GroupUser = "user"
)

// MaxTags caps the key:value pairs of a tag filter. Each pair is a condition
// over every kind of tagged entity (project, ticket, user, entry, team) in
// each query of the request, so the work of a report grows with the pairs;
// real filters name a few.
const MaxTags = 20

// Query is a parsed report request.
type Query struct {
	OrgID         uuid.UUID // uuid.Nil: the caller's session org
	Period        Period
	GroupBy       string
	IncludeUsers  bool
	IncludeBudget bool
	TeamID        uuid.UUID
	UserID        uuid.UUID
	CostCenterID  string
	ActivityType  string
	Tags          []capexdb.Tag
}

// RawQuery is the report's query string before validation.
type RawQuery struct {
	OrgID         uuid.UUID
	Period        string
	GroupBy       string
	IncludeUsers  bool
	IncludeBudget bool
	TeamID        uuid.UUID
	UserID        uuid.UUID
	CostCenterID  string
	ActivityType  string
	Tag           string
}

// ParseQuery validates the report parameters; every problem is listed in
// one 422.
func ParseQuery(r RawQuery) (Query, error) {
	var probs domain.Problems
	q := Query{OrgID: r.OrgID, IncludeUsers: r.IncludeUsers, IncludeBudget: r.IncludeBudget,
		TeamID: r.TeamID, UserID: r.UserID, CostCenterID: r.CostCenterID, ActivityType: r.ActivityType}
	p, err := ParsePeriod("period", r.Period)
	if err != nil {
		probs = append(probs, domain.AsError(err).Details...)
	}
	q.Period = p
	switch r.GroupBy {
	case GroupNone, GroupTeam, GroupUser:
		q.GroupBy = r.GroupBy
	default:
		probs.Add("group_by", "must be team or user")
	}
	if r.ActivityType != "" && !timeentry.ValidActivity(r.ActivityType) {
		probs.Add("activity_type", "must be one of "+strings.Join(timeentry.ActivityTypes, ", "))
	}
	tags, ok := ParseTags(r.Tag)
	switch {
	case !ok:
		probs.Add("tag", "must be comma-separated key:value pairs")
	case len(tags) > MaxTags:
		probs.Add("tag", fmt.Sprintf("at most %d key:value pairs (got %d)", MaxTags, len(tags)))
	}
	q.Tags = tags
	return q, probs.Err()
}

// ParseTags reads "k1:v1,k2:v2" (split at the first colon of each pair, so a
// value may hold colons; keys and values are matched exactly).
func ParseTags(s string) ([]capexdb.Tag, bool) {
	if strings.TrimSpace(s) == "" {
		return nil, true
	}
	var out []capexdb.Tag
	for _, pair := range strings.Split(s, ",") {
		k, v, found := strings.Cut(pair, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !found || k == "" || v == "" {
			return nil, false
		}
		out = append(out, capexdb.Tag{Key: k, Value: v})
	}
	return out, true
}

package searchdb

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/google/uuid"

	"tracker/internal/searchquery"
	"tracker/store/ticketdb"
)

// Key is a row's position in a sort: its sort key and id.
type Key struct {
	ID   uuid.UUID
	Time time.Time // created, updated
	Int  int64     // number, priority rank, due, estimate, a date field's days
	Rank float32   // relevance
	Num  string    // a number field's value (numeric text; ±Infinity: none)
}

// KeyOf is the position of r in sort s (relevance: rank is the row's).
func KeyOf(r ticketdb.Row, rank float32, s searchquery.Sort) Key {
	return keyOf(r, rank, nil, s)
}

// keyOf is KeyOf with the row's value of the sort's custom field as the
// page query read it (its sort expression as text).
func keyOf(r ticketdb.Row, rank float32, custom *string, s searchquery.Sort) Key {
	k := Key{ID: r.ID, Rank: rank}
	if s.Key == searchquery.SortCustom && custom != nil {
		if s.CustomType == "number" {
			k.Num = *custom
		} else {
			k.Int, _ = strconv.ParseInt(*custom, 10, 64)
		}
	}
	switch s.Key {
	case searchquery.SortCreated:
		k.Time = r.CreatedAt
	case searchquery.SortUpdated:
		k.Time = r.UpdatedAt
	case searchquery.SortNumber:
		k.Int = int64(r.TicketNumber)
	case searchquery.SortPriority:
		for i, p := range searchquery.Priorities {
			if p == r.Priority {
				k.Int = int64(i)
			}
		}
	case searchquery.SortDue:
		k.Int = NoDue(s.Desc)
		if r.DueDate != nil {
			k.Int = int64(r.DueDate.Time().Unix() / 86400)
		}
	case searchquery.SortEstimate:
		k.Int = NoEstimate(s.Desc)
		if r.Estimate != nil {
			k.Int = int64(*r.Estimate)
		}
	}
	return k
}

// NoDue and NoEstimate are the sort keys of a ticket without a due date or
// an estimate: past every value in the sort's direction, so those tickets
// come last either way (due: days since 1970-01-01; estimate: hundredths).
func NoDue(desc bool) int64 {
	if desc {
		return math.MinInt32
	}
	return math.MaxInt32
}

// NoNumber is the sort key of a ticket without a value of the number field
// sort:cf.<key> sorts by: past every value in the sort's direction.
func NoNumber(desc bool) string {
	if desc {
		return "-Infinity"
	}
	return "Infinity"
}

// NoEstimate: see NoDue.
func NoEstimate(desc bool) int64 {
	if desc {
		return -1
	}
	return math.MaxInt64
}

// RankWindow is how many matches a relevance sort ranks: the most recently
// updated ones (pages continue within them; sort:updated reaches the rest).
const RankWindow = 200

// rankExpr is the relevance of t to the rank text (bound once per use).
const rankExpr = "ts_rank(t.search_vector, websearch_to_tsquery('" + TextConfig + "', ?))"

// sortExpr is the SQL of a sort key (relevance: rankExpr, one argument);
// field is the field of a sort:cf.<key>.
func sortExpr(s searchquery.Sort, field uuid.UUID) string {
	switch s.Key {
	case searchquery.SortCustom:
		// The value row joined by Page's valued branch (customPage).
		if s.CustomType == "number" {
			return "cv.num_value"
		}
		return "cv.date_value"
	case searchquery.SortRelevance:
		return rankExpr
	case searchquery.SortCreated:
		return "t.created_at"
	case searchquery.SortUpdated:
		return "t.updated_at"
	case searchquery.SortNumber:
		return "t.ticket_number"
	case searchquery.SortPriority:
		return PriorityRank
	case searchquery.SortDue:
		return fmt.Sprintf("COALESCE(t.due_date - DATE '1970-01-01', %d)", NoDue(s.Desc))
	case searchquery.SortEstimate:
		return fmt.Sprintf("COALESCE((t.estimate * 100)::bigint, %d)", NoEstimate(s.Desc))
	}
	return ""
}

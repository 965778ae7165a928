package capex

import (
	"encoding/json"
	"strconv"

	"github.com/google/uuid"

	"tracker/internal/jsonw"
)

// AppendJSON appends the report as encoding/json would marshal it, byte
// for byte, without reflection: a month grouped by user is tens of
// thousands of objects, and encoding/json calls Decimal2's MarshalJSON
// through reflection and then re-scans each result. TestReportJSON compares
// it with json.Marshal on randomized and hostile data. The close
// information (one small object) is marshaled by encoding/json.
func (r Report) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"period":`...)
	b = jsonw.AppendString(b, r.Period)
	b = append(b, `,"total_hours":`...)
	b = appendDec(b, r.TotalHours)
	b = appendIntField(b, `,"total_amount_cents":`, r.TotalAmountCents)
	b = appendIntField(b, `,"capex_amount_cents":`, r.CapExAmountCents)
	b = appendIntField(b, `,"opex_amount_cents":`, r.OpExAmountCents)
	b = appendIntField(b, `,"unpriced_entries":`, r.UnpricedEntries)
	if r.Projects != nil {
		b = append(b, `,"projects":`...)
		b = appendArray(b, *r.Projects, appendProject)
	}
	if r.Teams != nil {
		b = append(b, `,"teams":`...)
		b = appendArray(b, *r.Teams, func(b []byte, t *TeamReport) []byte {
			b = append(b, `{"team_id":`...)
			if t.TeamID == nil {
				b = append(b, "null"...)
			} else {
				b = appendUUID(b, *t.TeamID)
			}
			b = append(b, `,"team_name":`...)
			b = appendOptString(b, t.TeamName)
			b = appendTotals(b, t.TotalHours, t.TotalAmountCents)
			return appendGroupProjects(b, t.Projects)
		})
	}
	if r.Users != nil {
		b = append(b, `,"users":`...)
		b = appendArray(b, *r.Users, func(b []byte, u *UserReport) []byte {
			b = appendUserHead(b, u.UserID, u.DisplayName, u.TotalHours, u.TotalAmountCents)
			return appendGroupProjects(b, u.Projects)
		})
	}
	if r.Policy != nil {
		c, err := json.Marshal(r.Policy)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"policy":`...)
		b = append(b, c...)
	}
	if r.Close != nil {
		c, err := json.Marshal(r.Close)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"close":`...)
		b = append(b, c...)
	}
	return append(b, '}'), nil
}

// appendArray appends items as a JSON array (null for a nil slice, as
// encoding/json writes it), each item by enc.
func appendArray[T any](b []byte, items []T, enc func([]byte, *T) []byte) []byte {
	if items == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = enc(b, &items[i])
	}
	return append(b, ']')
}

// appendUserHead opens a user's object (a UserReport's or a UserLine's):
// its id, name and totals, without the closing brace.
func appendUserHead(b []byte, id uuid.UUID, name string, hours Decimal2, cents int64) []byte {
	b = append(b, `{"user_id":`...)
	b = appendUUID(b, id)
	b = append(b, `,"display_name":`...)
	b = jsonw.AppendString(b, name)
	return appendTotals(b, hours, cents)
}

// appendTotals appends the total_hours and total_amount_cents fields.
func appendTotals(b []byte, hours Decimal2, cents int64) []byte {
	b = append(b, `,"total_hours":`...)
	b = appendDec(b, hours)
	return appendIntField(b, `,"total_amount_cents":`, cents)
}

// appendGroupProjects ends a team's or user's object with its projects.
func appendGroupProjects(b []byte, ps []ProjectReport) []byte {
	b = append(b, `,"projects":`...)
	return append(appendArray(b, ps, appendProject), '}')
}

func appendProject(b []byte, p *ProjectReport) []byte {
	b = append(b, `{"project_id":`...)
	b = appendUUID(b, p.ProjectID)
	b = append(b, `,"project_key":`...)
	b = jsonw.AppendString(b, p.ProjectKey)
	b = append(b, `,"project_name":`...)
	b = jsonw.AppendString(b, p.ProjectName)
	b = append(b, `,"capitalization_type":`...)
	b = appendOptString(b, p.CapitalizationType)
	b = append(b, `,"development_phase":`...)
	b = appendOptString(b, p.DevelopmentPhase)
	b = append(b, `,"cost_center_id":`...)
	b = appendOptString(b, p.CostCenterID)
	b = append(b, `,"capex_opex":`...)
	b = jsonw.AppendString(b, p.CapExOpEx)
	b = appendTotals(b, p.TotalHours, p.TotalAmountCents)
	b = appendIntField(b, `,"unpriced_entries":`, p.UnpricedEntries)
	if p.CapExAmountCents != nil { // omitempty
		b = appendIntField(b, `,"capex_amount_cents":`, *p.CapExAmountCents)
	}
	if p.OpExAmountCents != nil {
		b = appendIntField(b, `,"opex_amount_cents":`, *p.OpExAmountCents)
	}
	b = append(b, `,"breakdown":`...)
	b = appendArray(b, p.Breakdown, func(b []byte, a *ActivityLine) []byte {
		b = append(b, `{"activity_type":`...)
		b = jsonw.AppendString(b, a.ActivityType)
		b = append(b, `,"hours":`...)
		b = appendDec(b, a.Hours)
		b = appendIntField(b, `,"amount_cents":`, a.AmountCents)
		return append(b, '}')
	})
	if len(p.Users) > 0 { // omitempty
		b = append(b, `,"users":`...)
		b = appendArray(b, p.Users, func(b []byte, u *UserLine) []byte {
			return append(appendUserHead(b, u.UserID, u.DisplayName, u.TotalHours, u.TotalAmountCents), '}')
		})
	}
	if bf := p.BudgetFields; bf != nil { // embedded pointer: its fields, or none
		b = append(b, `,"budget_cents":`...)
		b = appendOptInt(b, bf.BudgetCents)
		b = append(b, `,"budget_period":`...)
		b = appendOptString(b, bf.BudgetPeriod)
		b = append(b, `,"spent_cents":`...)
		b = appendOptInt(b, bf.SpentCents)
		b = append(b, `,"budget_remaining_cents":`...)
		b = appendOptInt(b, bf.BudgetRemainingCents)
		b = append(b, `,"budget_utilization_pct":`...)
		if bf.BudgetUtilizationPct == nil {
			b = append(b, "null"...)
		} else {
			b = appendDec(b, *bf.BudgetUtilizationPct)
		}
	}
	return append(b, '}')
}

func appendIntField(b []byte, name string, v int64) []byte {
	return strconv.AppendInt(append(b, name...), v, 10)
}

func appendOptInt(b []byte, v *int64) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *v, 10)
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return jsonw.AppendString(b, *s)
}

// appendDec appends what Decimal2.MarshalJSON returns (String).
func appendDec(b []byte, d Decimal2) []byte {
	n := int64(d)
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = strconv.AppendInt(b, n/100, 10)
	b = append(b, '.')
	if f := n % 100; f < 10 {
		b = append(b, '0', byte('0'+f))
	} else {
		b = strconv.AppendInt(b, f, 10)
	}
	return b
}

func appendUUID(b []byte, id uuid.UUID) []byte {
	var s [36]byte
	hex := "0123456789abcdef"
	j := 0
	for i, c := range id {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			s[j] = '-'
			j++
		}
		s[j], s[j+1] = hex[c>>4], hex[c&0xf]
		j += 2
	}
	b = append(b, '"')
	b = append(b, s[:]...)
	return append(b, '"')
}

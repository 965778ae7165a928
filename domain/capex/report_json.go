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
		b = appendProjects(b, *r.Projects)
	}
	if r.Teams != nil {
		b = append(b, `,"teams":`...)
		if *r.Teams == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, t := range *r.Teams {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"team_id":`...)
				if t.TeamID == nil {
					b = append(b, "null"...)
				} else {
					b = appendUUID(b, *t.TeamID)
				}
				b = append(b, `,"team_name":`...)
				b = appendOptString(b, t.TeamName)
				b = append(b, `,"total_hours":`...)
				b = appendDec(b, t.TotalHours)
				b = appendIntField(b, `,"total_amount_cents":`, t.TotalAmountCents)
				b = append(b, `,"projects":`...)
				b = appendProjects(b, t.Projects)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
	}
	if r.Users != nil {
		b = append(b, `,"users":`...)
		if *r.Users == nil {
			b = append(b, "null"...)
		} else {
			b = append(b, '[')
			for i, u := range *r.Users {
				if i > 0 {
					b = append(b, ',')
				}
				b = append(b, `{"user_id":`...)
				b = appendUUID(b, u.UserID)
				b = append(b, `,"display_name":`...)
				b = jsonw.AppendString(b, u.DisplayName)
				b = append(b, `,"total_hours":`...)
				b = appendDec(b, u.TotalHours)
				b = appendIntField(b, `,"total_amount_cents":`, u.TotalAmountCents)
				b = append(b, `,"projects":`...)
				b = appendProjects(b, u.Projects)
				b = append(b, '}')
			}
			b = append(b, ']')
		}
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

func appendProjects(b []byte, ps []ProjectReport) []byte {
	if ps == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendProject(b, &ps[i])
	}
	return append(b, ']')
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
	b = append(b, `,"total_hours":`...)
	b = appendDec(b, p.TotalHours)
	b = appendIntField(b, `,"total_amount_cents":`, p.TotalAmountCents)
	b = appendIntField(b, `,"unpriced_entries":`, p.UnpricedEntries)
	b = append(b, `,"breakdown":`...)
	if p.Breakdown == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, a := range p.Breakdown {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"activity_type":`...)
			b = jsonw.AppendString(b, a.ActivityType)
			b = append(b, `,"hours":`...)
			b = appendDec(b, a.Hours)
			b = appendIntField(b, `,"amount_cents":`, a.AmountCents)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(p.Users) > 0 { // omitempty
		b = append(b, `,"users":[`...)
		for i, u := range p.Users {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"user_id":`...)
			b = appendUUID(b, u.UserID)
			b = append(b, `,"display_name":`...)
			b = jsonw.AppendString(b, u.DisplayName)
			b = append(b, `,"total_hours":`...)
			b = appendDec(b, u.TotalHours)
			b = appendIntField(b, `,"total_amount_cents":`, u.TotalAmountCents)
			b = append(b, '}')
		}
		b = append(b, ']')
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

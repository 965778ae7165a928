package project

import (
	"strings"
	"unicode/utf8"

	"tracker/domain"
	"tracker/store/projectdb"
)

// Limits of project fields. The spec fixes key and name; the others are the
// service's own (documented in docs/behaviour/projects-workflows-tags.md).
const (
	MaxKey            = 10
	MaxName           = 255
	MaxDescription    = 10000
	MaxFinanceText    = 100 // capitalization_type, development_phase, cost_center_id
	MaxAmortization   = 1200
	keyCharsAllowed   = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
	keyCharsDescribed = "letters, digits, '_' and '-'"
)

// BudgetPeriods are the spec's budget_period values.
var BudgetPeriods = []string{"Monthly", "Quarterly", "Yearly", "Fixed"}

// NormalizeKey checks a project key and returns it upper-cased. Keys are
// limited to ASCII letters, digits, '_' and '-' so that they read the same in
// URLs (/projects/key/{key}) and ticket references (KEY-12) and upper-case
// identically in Go and PostgreSQL.
func NormalizeKey(p *domain.Problems, key string) string {
	n := utf8.RuneCountInString(key)
	switch {
	case n < 1 || n > MaxKey:
		p.Add("key", "must be 1-10 characters")
	case strings.Trim(key, keyCharsAllowed) != "":
		p.Add("key", "may contain only "+keyCharsDescribed)
	}
	return strings.ToUpper(key)
}

// CheckName is the spec's 1-255 characters, blank being empty. The API
// and the importer both apply it (as CheckAmortization, CheckBudget and
// CheckInService), so a document is held to the rules of a request.
func CheckName(p *domain.Problems, name string) {
	if strings.TrimSpace(name) == "" || utf8.RuneCountInString(name) > MaxName {
		p.Add("name", "must be 1-255 characters")
	}
}

func checkDescription(p *domain.Problems, d *string) {
	if d != nil && utf8.RuneCountInString(*d) > MaxDescription {
		p.Add("description", "must be at most 10000 characters")
	}
}

// Content are a project's own values (projectdb.Content): what a create sets
// and a patch changes, field by field (domain.Patch).
type Content = projectdb.Content

// checkContent applies the rules of a project's own values, to a new
// project's and to the values a patch sets (nil: absent or null) alike. A
// field without a rule needs no line here.
func checkContent(p *domain.Problems, c *Content) {
	checkText(p, "capitalization_type", c.CapitalizationType)
	checkText(p, "development_phase", c.DevelopmentPhase)
	checkText(p, "cost_center_id", c.CostCenterID)
	CheckAmortization(p, c.AmortizationMonths)
	c.EstimateUnit = NormalizeEstimateUnit(p, c.EstimateUnit)
}

// EstimateUnits are what a project's ticket estimates count.
var EstimateUnits = []string{"points", "hours"}

// NormalizeEstimateUnit reads an estimate unit in any case; none (a create
// or a document without one, or null) is points.
func NormalizeEstimateUnit(p *domain.Problems, v string) string {
	if v == "" {
		return EstimateUnits[0]
	}
	for _, u := range EstimateUnits {
		if strings.EqualFold(u, v) {
			return u
		}
	}
	p.Add("estimate_unit", "must be one of points, hours")
	return v
}

// checkText is a free-text finance field: 1-100 characters when present.
func checkText(p *domain.Problems, field string, v *string) {
	if v == nil {
		return
	}
	if n := utf8.RuneCountInString(*v); strings.TrimSpace(*v) == "" || n > MaxFinanceText {
		p.Add(field, "must be 1-100 characters")
	}
}

// CheckAmortization is 0-1200 months when present.
func CheckAmortization(p *domain.Problems, v *int64) {
	if v != nil && (*v < 0 || *v > MaxAmortization) {
		p.Add("amortization_months", "must be between 0 and 1200")
	}
}

// CheckBudget is a budget of at least 0 cents when present.
func CheckBudget(p *domain.Problems, v *int64) {
	if v != nil && *v < 0 {
		p.Add("budget_cents", "must be at least 0")
	}
}

// normalizePeriod accepts a budget period in any case and returns the
// spec's spelling.
func normalizePeriod(p *domain.Problems, v *string) *string {
	if v == nil {
		return nil
	}
	for _, bp := range BudgetPeriods {
		if strings.EqualFold(bp, *v) {
			return &bp
		}
	}
	p.Add("budget_period", "must be one of Monthly, Quarterly, Yearly, Fixed")
	return v
}

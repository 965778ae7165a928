package capex

import (
	"time"

	"tracker/internal/civil"
	"tracker/store/capexdb"
)

// framework is the framework of pol; ASC 350-40's stages when none.
func (pol *PolicyRef) framework() string {
	if pol == nil {
		return FrameworkASC35040
	}
	return pol.Framework
}

// capexFrom is the first date on which a project's time is capitalized
// under framework, read from the project's columns l; ok is false when
// none of it is. Under ASC 350-40 (and without a policy) the project's
// classification holds for every date. A project whose
// capitalization_type says expensed is OpEx under every framework: it is
// the project's own declaration that nothing of it is capitalized.
func capexFrom(framework string, l *capexdb.Line) (from time.Time, ok bool) {
	if framework == FrameworkASC35040 {
		return time.Time{}, Classify(l.CapitalizationType, l.DevelopmentPhase) == CapEx
	}
	if expensed(l.CapitalizationType) {
		return time.Time{}, false
	}
	switch framework {
	case FrameworkASU202506:
		if l.CompletionProbable == nil || !*l.CompletionProbable || l.FundingAuthorizedOn == nil ||
			l.SignificantUncertaintyResolvedOn == nil {
			return time.Time{}, false
		}
		return later(*l.FundingAuthorizedOn, *l.SignificantUncertaintyResolvedOn).Time(), true
	case FrameworkIAS38:
		if l.ResearchEndsOn == nil || l.IAS38CriteriaMetOn == nil {
			return time.Time{}, false
		}
		return later(l.ResearchEndsOn.AddDays(1), *l.IAS38CriteriaMetOn).Time(), true
	}
	return time.Time{}, false
}

func later(a, b civil.Date) civil.Date {
	if a.Before(b) {
		return b
	}
	return a
}

// classOn is the classification of a project's time dated day.
func classOn(framework string, l *capexdb.Line, day time.Time) string {
	if from, ok := capexFrom(framework, l); ok && !day.Before(from) {
		return CapEx
	}
	return OpEx
}

// reasonOn says why a project's time dated day is classified as it is, for
// the drill-down.
func reasonOn(framework string, l *capexdb.Line, day time.Time) string {
	c := classOn(framework, l, day)
	switch framework {
	case FrameworkASU202506:
		if expensed(l.CapitalizationType) {
			return "ASU 2025-06: the project's capitalization_type is expensed"
		}
		switch {
		case l.CompletionProbable == nil || !*l.CompletionProbable:
			return "ASU 2025-06: completion is not probable"
		case l.FundingAuthorizedOn == nil:
			return "ASU 2025-06: funding is not authorized"
		case l.SignificantUncertaintyResolvedOn == nil:
			return "ASU 2025-06: significant development uncertainty is unresolved"
		case c == OpEx && day.Before(l.FundingAuthorizedOn.Time()):
			return "ASU 2025-06: before funding was authorized on " + l.FundingAuthorizedOn.String()
		case c == OpEx:
			return "ASU 2025-06: before significant development uncertainty was resolved on " +
				l.SignificantUncertaintyResolvedOn.String()
		}
		return "ASU 2025-06: funding authorized, completion probable, no significant development uncertainty"
	case FrameworkIAS38:
		if expensed(l.CapitalizationType) {
			return "IAS 38: the project's capitalization_type is expensed"
		}
		switch {
		case l.ResearchEndsOn == nil || !day.After(l.ResearchEndsOn.Time()):
			return "IAS 38: research phase"
		case l.IAS38CriteriaMetOn == nil:
			return "IAS 38: development criteria not met"
		case c == OpEx:
			return "IAS 38: before the development criteria were met on " + l.IAS38CriteriaMetOn.String()
		}
		return "IAS 38: development phase with the criteria met"
	}
	if c == CapEx {
		return "ASC 350-40: application development stage"
	}
	if expensed(l.CapitalizationType) {
		return "ASC 350-40: the project's capitalization_type is expensed"
	}
	return "ASC 350-40: not in the application development stage"
}

func expensed(capitalizationType *string) bool {
	return capitalizationType != nil && (sameNorm(*capitalizationType, "expensed") ||
		sameNorm(*capitalizationType, "opex") || sameNorm(*capitalizationType, "expense"))
}

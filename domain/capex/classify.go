package capex

import (
	"strings"
	"unicode"
)

// Classification of capitalized (CapEx) and expensed (OpEx) cost, after the
// software development stages of ASC 350-40: only the application development
// stage is capitalized; the preliminary project stage and the
// post-implementation stage are expensed.
const (
	CapEx = "CapEx"
	OpEx  = "OpEx"
)

// Development phases, compared without case, spaces, '-' or '_'.
const (
	PhasePreliminary            = "Preliminary"
	PhaseApplicationDevelopment = "ApplicationDevelopment"
	PhasePostImplementation     = "PostImplementation"
)

// Classify decides CapEx or OpEx for a project: capitalization_type
// "expensed" or "opex" forces OpEx; otherwise development_phase
// ApplicationDevelopment is CapEx and every other phase (Preliminary,
// PostImplementation, unknown or unset) is OpEx, so nothing is capitalized
// by accident.
func Classify(capitalizationType, developmentPhase *string) string {
	if capitalizationType != nil {
		switch norm(*capitalizationType) {
		case "expensed", "opex", "expense":
			return OpEx
		}
	}
	if developmentPhase != nil && norm(*developmentPhase) == norm(PhaseApplicationDevelopment) {
		return CapEx
	}
	return OpEx
}

func norm(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || r == '-' || r == '_' {
			return -1
		}
		return unicode.ToLower(r)
	}, s)
}

package capex

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Classification of capitalized (CapEx) and expensed (OpEx) cost, after the
// software development stages of ASC 350-40: only the application development
// stage is capitalized; the preliminary project stage and the
// post-implementation stage are expensed.
const (
	CapEx = "CapEx"
	OpEx  = "OpEx"
	// Mixed is a project's classification in a month that a policy's
	// framework capitalizes from a date inside it.
	Mixed = "Mixed"
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
		if sameNorm(*capitalizationType, "expensed") || sameNorm(*capitalizationType, "opex") ||
			sameNorm(*capitalizationType, "expense") {
			return OpEx
		}
	}
	if developmentPhase != nil && sameNorm(*developmentPhase, normApplicationDevelopment) {
		return CapEx
	}
	return OpEx
}

var normApplicationDevelopment = norm(PhaseApplicationDevelopment)

func norm(s string) string {
	return strings.Map(normRune, s)
}

// normRune is norm's mapping of one rune (-1 drops it).
func normRune(r rune) rune {
	if unicode.IsSpace(r) || r == '-' || r == '_' {
		return -1
	}
	return unicode.ToLower(r)
}

// sameNorm reports whether norm(s) == normed without building norm(s): the
// report classifies every line, so this runs thousands of times a request.
func sameNorm(s, normed string) bool {
	i := 0
	for _, r := range s {
		if r = normRune(r); r == -1 {
			continue
		}
		t, size := utf8.DecodeRuneInString(normed[i:])
		if i >= len(normed) || r != t {
			return false
		}
		i += size
	}
	return i == len(normed)
}

package searchquery

import "strings"

// CustomKey is the key of a custom field term's name cf.<key> (any case).
func CustomKey(name string) (string, bool) {
	if len(name) > 3 && strings.EqualFold(name[:3], "cf.") {
		return strings.ToLower(name[3:]), true
	}
	return "", false
}

func isCustomKey(k string) bool {
	if k == "" || len(k) > 64 {
		return false
	}
	for _, c := range []byte(k) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

package worker

import "tracker/worker/jobkind"

// topics merges every registration's dispatchers by topic.
func topics(regs []jobkind.Registration) map[string][]jobkind.Dispatch {
	out := map[string][]jobkind.Dispatch{}
	for _, r := range regs {
		for t, d := range r.Topics {
			out[t] = append(out[t], d)
		}
	}
	return out
}

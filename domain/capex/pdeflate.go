package capex

import (
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// The XLSX exports' zip entries are deflated in parallel. excelize zips
// the sheet only after its last row (the whole sheet XML, 78 MB for 100k
// entries, read back from its temporary file), so the compression is a
// phase of its own in which the entries' reader has ended and a core is
// idle. parallelDeflate cuts what it is given into blocks, compresses
// them on as many goroutines as there are cores and writes them in order:
// each block is compressed by a fresh compressor and ends with a sync
// flush (a byte-aligned, non-final empty stored block), and Close appends
// an empty final block, so the concatenation is one valid deflate stream
// (what pigz does). A block only loses the back-references into the one
// before it (at 1 MiB blocks, a few hundred bytes in a 13 MB workbook).

// deflateBlock is the bytes of input per block.
const deflateBlock = 1 << 20

var (
	deflaters   = sync.Pool{New: func() any { w, _ := flate.NewWriter(io.Discard, flate.BestSpeed); return w }}
	deflateJobs = sync.Pool{New: func() any { return &deflateJob{in: make([]byte, 0, deflateBlock)} }}
)

// parallelDeflate is the io.WriteCloser registered for zip.Deflate.
type parallelDeflate struct {
	w       io.Writer
	job     *deflateJob   // the block being filled
	pending []*deflateJob // compressing or compressed, in order
	workers int
	err     error
}

// deflateJob is one block: its input, its compressed output (both reused
// through deflateJobs) and its outcome.
type deflateJob struct {
	in   []byte
	out  bytes.Buffer
	err  error
	done chan struct{}
}

func newParallelDeflate(w io.Writer) *parallelDeflate {
	return &parallelDeflate{w: w, workers: max(runtime.GOMAXPROCS(0), 1)}
}

func (p *parallelDeflate) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 && p.err == nil {
		if p.job == nil {
			p.job = deflateJobs.Get().(*deflateJob)
			p.job.in, p.job.err = p.job.in[:0], nil
			p.job.out.Reset()
		}
		in := p.job.in
		k := copy(in[len(in):cap(in)], b)
		p.job.in, b = in[:len(in)+k], b[k:]
		if len(p.job.in) == cap(p.job.in) {
			p.dispatch()
		}
	}
	if p.err != nil {
		return 0, p.err
	}
	return n, nil
}

// dispatch starts compressing the filled block; with every worker busy,
// it first writes out the oldest block.
func (p *parallelDeflate) dispatch() {
	for len(p.pending) >= p.workers && p.err == nil {
		p.writeOldest()
	}
	if p.err != nil {
		return
	}
	j := p.job
	p.job, j.done = nil, make(chan struct{})
	p.pending = append(p.pending, j)
	go func() {
		defer close(j.done)
		fw := deflaters.Get().(*flate.Writer)
		fw.Reset(&j.out)
		if _, j.err = fw.Write(j.in); j.err == nil {
			j.err = fw.Flush()
		}
		fw.Reset(io.Discard)
		deflaters.Put(fw)
	}()
}

// writeOldest waits for the oldest block and writes it.
func (p *parallelDeflate) writeOldest() {
	j := p.pending[0]
	p.pending = p.pending[1:]
	<-j.done
	if p.err == nil {
		p.err = j.err
	}
	if p.err == nil {
		_, p.err = p.w.Write(j.out.Bytes())
	}
	deflateJobs.Put(j)
}

// Close writes the remaining blocks and the final empty block. Blocks
// still compressing after an error are waited for (they write nothing).
func (p *parallelDeflate) Close() error {
	if p.job != nil && len(p.job.in) > 0 && p.err == nil {
		p.dispatch()
	}
	for len(p.pending) > 0 {
		p.writeOldest()
	}
	if p.err != nil {
		return p.err
	}
	fw := deflaters.Get().(*flate.Writer)
	fw.Reset(p.w)
	p.err = fw.Close()
	fw.Reset(io.Discard)
	deflaters.Put(fw)
	return p.err
}

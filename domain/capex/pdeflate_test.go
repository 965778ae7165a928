package capex

import (
	"archive/zip"
	"bytes"
	stdflate "compress/flate"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/flate"
)

// sheetLike is n bytes of text shaped like sheet XML (rows of cells with
// varying numbers), compressible as a sheet is.
func sheetLike(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for row := 1; b.Len() < n; row++ {
		fmt.Fprintf(&b, `<row r="%d"><c r="A%d" s="3"><v>%d</v></c><c r="B%d" t="inlineStr"><is><t>%x</t></is></c></row>`,
			row, row, r.IntN(100000), row, r.Uint64())
	}
	return b.Bytes()[:n]
}

// write sends data to w in chunks of the given size, as io.Copy does.
func writeChunks(t *testing.T, w io.Writer, data []byte, chunk int) {
	t.Helper()
	for len(data) > 0 {
		k := min(chunk, len(data))
		if n, err := w.Write(data[:k]); err != nil || n != k {
			t.Fatalf("write: %d, %v", n, err)
		}
		data = data[k:]
	}
}

// Whatever the size and however it is written, the parallel deflate's
// output inflates (standard library) to the input, on its own and as a
// zip entry read by archive/zip.
func TestParallelDeflateRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 1000, deflateBlock - 1, deflateBlock, deflateBlock + 1, 3*deflateBlock + 12345} {
		for _, chunk := range []int{7, 32 << 10, 5 << 20} {
			if n > 1000 && chunk == 7 {
				continue
			}
			data := sheetLike(n, uint64(n))
			var out bytes.Buffer
			p := newParallelDeflate(&out)
			writeChunks(t, p, data, chunk)
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(stdflate.NewReader(&out))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes in chunks of %d: inflated %d bytes (%v)", n, chunk, len(got), err)
			}
		}
	}

	data := sheetLike(5*deflateBlock/2, 9)
	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) { return newParallelDeflate(out), nil })
	fw, err := zw.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		t.Fatal(err)
	}
	writeChunks(t, fw, data, 32<<10)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(z.Bytes()), int64(z.Len()))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(rc) // archive/zip checks the CRC-32 at the end
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("zip entry: %d bytes (%v)", len(got), err)
	}
}

// The stream is the blocks compressed each on its own (a fresh level-1
// compressor, ended by a sync flush) and an empty final block: what lets
// them be compressed at the same time.
func TestParallelDeflateBlocks(t *testing.T) {
	data := sheetLike(5*deflateBlock/2, 3)
	var out bytes.Buffer
	p := newParallelDeflate(&out)
	writeChunks(t, p, data, 32<<10)
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	for rest := data; len(rest) > 0; {
		k := min(deflateBlock, len(rest))
		fw, _ := flate.NewWriter(&want, flate.BestSpeed)
		if _, err := fw.Write(rest[:k]); err != nil {
			t.Fatal(err)
		}
		if err := fw.Flush(); err != nil {
			t.Fatal(err)
		}
		rest = rest[k:]
	}
	fw, _ := flate.NewWriter(&want, flate.BestSpeed)
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatalf("stream of %d bytes, want the 3 blocks' %d", out.Len(), want.Len())
	}
}

type failWriter struct{ after int }

var errFull = errors.New("disk full")

func (f *failWriter) Write(b []byte) (int, error) {
	if f.after <= 0 {
		return 0, errFull
	}
	f.after--
	return len(b), nil
}

// A failing destination fails the stream (a later Write or Close), and
// Close still waits for the blocks being compressed.
func TestParallelDeflateWriteError(t *testing.T) {
	for after := range 4 {
		p := newParallelDeflate(&failWriter{after: after})
		data := sheetLike(6*deflateBlock, 5)
		var err error
		for rest := data; len(rest) > 0 && err == nil; {
			k := min(32<<10, len(rest))
			_, err = p.Write(rest[:k])
			rest = rest[k:]
		}
		if cerr := p.Close(); !errors.Is(cerr, errFull) || (err != nil && !errors.Is(err, errFull)) {
			t.Fatalf("after %d writes: write %v, close %v", after, err, cerr)
		}
		if len(p.pending) != 0 {
			t.Fatalf("%d blocks left pending", len(p.pending))
		}
	}
}

// The deflate phase alone on 78 MB of sheet-like XML (about the 100k-entry
// drill-down's sheet): one level-1 compressor against parallelDeflate.
// go test -run '^$' -bench DeflateSheet ./domain/capex/
func BenchmarkDeflateSheet(b *testing.B) {
	data := sheetLike(78<<20, 1)
	for _, c := range []struct {
		name string
		w    func(io.Writer) io.WriteCloser
	}{
		{"serial", func(w io.Writer) io.WriteCloser { fw, _ := flate.NewWriter(w, flate.BestSpeed); return fw }},
		{"parallel", func(w io.Writer) io.WriteCloser { return newParallelDeflate(w) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				w := c.w(io.Discard)
				for rest := data; len(rest) > 0; {
					k := min(32<<10, len(rest))
					if _, err := w.Write(rest[:k]); err != nil {
						b.Fatal(err)
					}
					rest = rest[k:]
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// At most workers blocks are in flight: with every worker busy the oldest
// block is written out before the next starts, and the stream is whole.
func TestParallelDeflateBound(t *testing.T) {
	var out bytes.Buffer
	p := newParallelDeflate(&out)
	p.workers = 2
	block := sheetLike(deflateBlock, 7)
	for i := range 5 {
		if _, err := p.Write(block); err != nil {
			t.Fatal(err)
		}
		if len(p.pending) > p.workers {
			t.Fatalf("after block %d: %d blocks in flight, want at most %d", i, len(p.pending), p.workers)
		}
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(flate.NewReader(&out))
	if err != nil || !bytes.Equal(got, bytes.Repeat(block, 5)) {
		t.Fatalf("round trip: %d bytes, %v", len(got), err)
	}
}

// onceFailing fails its first write only.
type onceFailing struct{ calls int }

func (w *onceFailing) Write(b []byte) (int, error) {
	w.calls++
	if w.calls == 1 {
		return 0, errFull
	}
	return len(b), nil
}

// A destination that fails once fails the stream: the blocks after it are
// not written, and Close reports the error.
func TestParallelDeflateErrorSticks(t *testing.T) {
	w := &onceFailing{}
	p := newParallelDeflate(w)
	p.workers = 4
	if _, err := p.Write(sheetLike(3*deflateBlock+10, 5)); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); !errors.Is(err, errFull) {
		t.Fatalf("close %v, want %v", err, errFull)
	}
	if w.calls != 1 {
		t.Fatalf("%d writes after the failure", w.calls-1)
	}
}

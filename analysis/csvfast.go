package analysis

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unsafe"
)

// lineReader reads CSV records (RFC 4180, as encoding/csv) with a fast path
// for the common case of lines without quotes: the raw files written by the
// engine have no quoted fields, and splitting them on commas directly is
// about twice as fast as encoding/csv. Lines containing a double quote
// (possibly continued over several physical lines) are handed to
// encoding/csv, so quoting is still handled correctly.
type lineReader struct {
	br     *bufio.Reader
	line   int // physical line number of the last line read
	start  int // line where the last record started
	fields []string
	buf    []byte
}

// ErrUnterminated is wrapped by the error for a file whose last line has no
// line end: every tool that writes CSV ends each line, so the file was cut
// off (a run still writing, a disk full, a truncated copy).
var ErrUnterminated = errors.New("last line has no line end: the file is truncated (still being written, or cut off)")

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{br: bufio.NewReaderSize(r, 1<<20)}
}

// readLine returns the next physical line without the line terminator.
func (lr *lineReader) readLine() ([]byte, error) {
	lr.buf = lr.buf[:0]
	first := true
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if first && err == nil {
			// Common case: the whole line is in bufio's buffer; use it
			// in place (valid until the next read).
			lr.line++
			b := bytes.TrimSuffix(chunk, []byte("\n"))
			return bytes.TrimSuffix(b, []byte("\r")), nil
		}
		first = false
		lr.buf = append(lr.buf, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && len(lr.buf) > 0 {
			// A last line without a line end is what a file cut off
			// mid-write looks like ("none" truncated to "no" would make a
			// fake group): refuse it rather than guess.
			lr.line++
			return nil, ErrUnterminated
		}
		if err != nil {
			return nil, err
		}
		lr.line++
		b := lr.buf
		b = bytes.TrimSuffix(b, []byte("\n"))
		b = bytes.TrimSuffix(b, []byte("\r"))
		return b, nil
	}
}

// Read returns the next non-empty record. The returned slice and, on the
// fast path, the strings in it are only valid until the next call.
func (lr *lineReader) Read() ([]string, error) {
	for {
		b, err := lr.readLine()
		if err != nil {
			return nil, err
		}
		if len(b) == 0 {
			continue
		}
		lr.start = lr.line
		if bytes.IndexByte(b, '"') < 0 {
			// The fields alias lr.buf until the next Read: callers copy
			// what they keep (strings.Clone), and the map lookups and
			// number parsing do not retain them.
			s := unsafe.String(&b[0], len(b))
			lr.fields = lr.fields[:0]
			for {
				i := strings.IndexByte(s, ',')
				if i < 0 {
					lr.fields = append(lr.fields, s)
					break
				}
				lr.fields = append(lr.fields, s[:i])
				s = s[i+1:]
			}
			return lr.fields, nil
		}
		// Quoted: gather physical lines until the quotes balance.
		rec := append([]byte(nil), b...)
		for bytes.Count(rec, []byte{'"'})%2 == 1 {
			nb, err := lr.readLine()
			if err == io.EOF {
				break // let encoding/csv report the error
			}
			if err != nil {
				return nil, err
			}
			rec = append(rec, '\n')
			rec = append(rec, nb...)
		}
		cr := csv.NewReader(bytes.NewReader(rec))
		cr.FieldsPerRecord = -1
		f, err := cr.Read()
		if err != nil {
			if pe, ok := err.(*csv.ParseError); ok {
				pe.StartLine += lr.start - 1
				pe.Line += lr.start - 1
			}
			return nil, err
		}
		lr.fields = append(lr.fields[:0], f...)
		return lr.fields, nil
	}
}

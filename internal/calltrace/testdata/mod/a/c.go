package a

import "example.com/mod/w"

// Data is the data of RunData's path.
type Data struct{ n int }

// RunData is the entry of the data-path case: c.go, d.go, w.go, c.go,
// d.go, w.go in the whole preorder (three returns); only newData, fill and
// the writer carry Data or w.Writer, so the data path is c.go, d.go, w.go.
func RunData() {
	d := newData()
	w.Check()
	plain()
	fill(&d)
	var wr w.Writer
	wr.Row()
}

func plain() {}

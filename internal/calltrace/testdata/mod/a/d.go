package a

func newData() Data { return Data{} }

func fill(d *Data) { d.n++ }

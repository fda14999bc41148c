package a

func helper() { again() }

func unused() {}

package rawdata

// RegionLabel and RegionCall are what package region writes in the rows
// of an application's regions: the label that holds a row's region name
// (label:region) and the default call column. The analysis reads them to
// tell region rows from benchmark rows.
const (
	RegionLabel = "region"
	RegionCall  = "region"
)

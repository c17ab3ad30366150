package cmdflag

// Reading is the flag group of the commands that read dumps of cards and
// judge them (validation and diff): how inputs are cut into cards, by how
// many workers, under which rules. Declared here once, the flags read and
// are documented alike in every command that has them.
type Reading struct {
	Jobs    int
	Profile string
	Input   string
	Policy  string
	// MaxRecord and ChunkSize hold their defaults when AddFlags is
	// called: the reader's, which this package does not know.
	MaxRecord Size
	ChunkSize Size
}

// AddFlags declares the group's flags in fs.
func (r *Reading) AddFlags(fs *Set) {
	fs.Int(&r.Jobs, "-j, --jobs N", 0, "workers (default: the number of CPUs)")
	fs.String(&r.Profile, "--profile NAME", "auto", "rule set: auto or one of --list-rules' profiles")
	// The default's meaning takes more than its name, so the help says it.
	fs.String(&r.Input, "--input FRAMING", "auto", "auto, ndjson or json: how inputs are cut into cards (default auto:\n"+
		"json when the text starts with '[', or with '{' or '\"' on a first\n"+
		"line that is not a whole value; ndjson otherwise)").HideDefault()
	fs.String(&r.Policy, "--policy NAME", "default", "default or production: production makes plain http,\n"+
		"localhost and private-address URLs errors (no network calls)").HideDefault()
	fs.Var(&r.MaxRecord, "--max-record SIZE", "longest record judged, e.g. 16MiB")
	fs.Var(&r.ChunkSize, "--chunk-size SIZE", "bytes handed to a worker at a time")
}

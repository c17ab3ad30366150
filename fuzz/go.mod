module github.com/cardscan/cardscan/fuzz

go 1.26.0

require (
	github.com/cardscan/cardscan v0.0.0
	github.com/gowebpki/jcs v1.0.1
	github.com/oklog/ulid/v2 v2.1.2
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace github.com/cardscan/cardscan => ../

module github.com/cardscan/cardscan

go 1.26.0

require (
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/cespare/xxhash/v2 v2.3.0
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
	github.com/go-jose/go-jose/v4 v4.1.9
	github.com/goccy/go-yaml v1.19.2
	github.com/google/jsonschema-go v0.4.3
	github.com/klauspost/compress v1.20.3
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/mtibben/confusables v0.0.0-20210201002637-9d1b0723b659
	github.com/prometheus/client_golang v1.25.0
	github.com/prometheus/common v0.72.0
	github.com/valyala/fastjson v1.6.10
	github.com/zeebo/xxh3 v1.1.0
	go.lsp.dev/jsonrpc2 v1.0.1
	golang.org/x/net v0.60.0
	golang.org/x/sync v0.23.0
	golang.org/x/term v0.47.0
	golang.org/x/text v0.42.0
	google.golang.org/grpc v1.85.0
)

require google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1 // indirect

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260601182631-00ed12fed2a6
	github.com/klauspost/cpuid/v2 v2.2.10 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sys v0.49.0
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/protobuf v1.36.12
)

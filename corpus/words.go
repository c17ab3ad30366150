package corpus

// Vocabulary for realistic cards. Every entry is plain ASCII unless its list
// says otherwise, and no list holds an entry twice (pickDistinct relies on
// it).

var (
	nameHeads = []string{
		"Research", "Invoice", "Travel", "Support", "Compliance", "Market", "Code", "Data",
		"Weather", "Recipe", "Legal", "Hiring", "Billing", "Security", "Docs", "Sales",
		"Inventory", "Logistics", "Translation", "Finance", "Health", "Energy", "Route",
		"Tax", "Email", "Calendar", "Contract", "Forecast", "Pricing", "Fraud",
	}
	nameTails = []string{
		"Analyst", "Agent", "Assistant", "Planner", "Scout", "Reviewer", "Summariser",
		"Orchestrator", "Concierge", "Auditor", "Monitor", "Navigator", "Curator",
		"Dispatcher", "Advisor", "Broker", "Builder", "Checker", "Copilot", "Worker",
	}
	// nameUnicode holds names with non-ASCII letters, as real registries have.
	nameUnicode = []string{
		"Café Concierge", "Größenrechner", "Éclair Planner", "データ分析エージェント",
		"Агент поддержки", "研究助手", "Señor Recetas", "Ωμέγα Router", "Smørrebrød Scout",
		"Kaffeeröster Agent",
	}

	capNamespaces = []string{"text", "tool", "data", "fn", "a2a", "com.example", "org.acme.labs", "io.agents"}
	capVerbs      = []string{
		"summarise", "generate", "translate", "classify", "extract_entities", "web_search",
		"python_repl", "query_sql", "fetch_csv", "get_weather", "delegate", "negotiate",
		"review", "plan_route", "book_hotel", "parse_invoice", "detect_fraud", "rank",
		"embed", "transcribe", "ocr", "forecast", "schedule", "notify", "sign",
		"verify", "score_risk", "diff", "lint", "deploy", "scrape", "geocode",
		"convert_currency", "answer", "moderate", "cluster", "dedupe", "anonymise",
	}
	// descVerbs read right before an object: "Summarise a document".
	descVerbs = []string{
		"Summarise", "Translate", "Classify", "Extract entities from", "Search the web for",
		"Run Python against", "Query", "Parse", "Review", "Rank the items in", "Transcribe",
		"Forecast from", "Geocode", "Score the risk of", "Anonymise", "Deduplicate", "Validate",
		"Convert the currency amounts in", "Moderate", "Answer questions about", "Sign", "Index",
	}
	capObjects = []string{
		"a document", "a web page", "a CSV file", "an invoice", "a SQL query", "a city name",
		"a pull request", "a support ticket", "an audio clip", "a contract", "a product listing",
		"a list of addresses", "a time series", "a meeting transcript", "a JSON payload",
	}
	capResults = []string{
		"a concise summary", "the top-k results", "structured fields", "a risk score between 0 and 1",
		"parsed rows", "a ranked list", "a JSON report", "the current conditions", "a route with timings",
		"an annotated copy", "a confidence estimate", "a signed receipt", "a list of findings",
	}
	capQualifiers = []string{
		"within a given word limit", "in under two seconds", "for any supported language",
		"using the public index", "with citations", "with per-field confidence",
		"respecting the caller's rate limit", "in the caller's preferred units",
		"deterministically for the same input", "with a trace identifier for auditing",
	}
	tagWords = []string{
		"search", "retrieval", "nlp", "summary", "finance", "maps", "routing", "weather",
		"code", "review", "quality", "billing", "ocr", "audio", "security", "compliance",
		"legal", "travel", "analytics", "forecasting", "scheduling", "translation",
		"extraction", "classification", "monitoring", "devops", "support", "sales",
	}

	paramNames = []string{
		"text", "query", "url", "city", "units", "language", "max_words", "top_k",
		"document_id", "start_date", "end_date", "currency", "amount", "source",
		"threshold", "format", "timezone", "locale", "limit", "include_metadata",
	}
	resultNames = []string{
		"summary", "results", "score", "rows", "issues", "route", "forecast", "labels",
		"entities", "translation", "status", "report", "confidence", "trace_id",
	}
	jsonTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

	frameworks     = []string{"crewai", "langchain", "autogen", "llamaindex", "semantic-kernel", "custom", "haystack", "dspy"}
	substrates     = []string{"AWS_Graviton_c7g", "M1_Ultra", "UKBiobank", "GCP_TPUv5e", "Azure_NDv5", "RaspberryPi5", "NVIDIA_H100"}
	trustTiers     = []string{"untrusted", "basic", "established", "verified", "banned"}
	authSchemes    = []string{"none", "bearer", "api_key", "oauth2", "mtls"}
	goalTopics     = []string{"Competitive analysis", "Quarterly forecast", "Incident response", "Supplier audit", "Customer onboarding", "Carbon accounting", "Fraud sweep", "Release readiness"}
	quarters       = []string{"Q1", "Q2", "Q3", "Q4"}
	regions        = []string{"eu-west-1", "us-east-2", "ap-southeast-1", "eu-central-1", "us-west-2"}
	currencies     = []string{"USD", "EUR", "GBP", "JPY", "USDC", "CHF"}
	hostPrefixes   = []string{"agents", "api", "a2a", "svc", "gateway", "edge", "tools", "mcp"}
	domains        = []string{"example.com", "example.org", "example.net", "agents.example.com", "labs.example.org", "acme.example"}
	pathWords      = []string{"api", "v1", "v2", "agents", "invoke", "rpc", "a2a", "jsonrpc", "run", "tasks"}
	headerNames    = []string{"X-API-Key", "X-Agent-Token", "Authorization", "X-Api-Secret"}
	providerOrgs   = []string{"Example Geo Services Inc.", "Acme Robotics", "Globex Analytics", "Initech Labs", "Umbrella Data Co.", "Stark Automation", "Wayne Logistics"}
	mimeInputs     = []string{"text/plain", "application/json", "image/png", "audio/wav", "application/pdf", "text/csv"}
	mimeOutputs    = []string{"text/plain", "application/json", "image/png", "text/html", "text/markdown", "application/vnd.geo+json"}
	transports     = []string{"JSONRPC", "GRPC", "HTTP+JSON"}
	oidcScopes     = []string{"openid", "profile", "email", "agents.read", "agents.write", "tasks.run"}
	skillVerbs     = []string{"Plan", "Summarise", "Translate", "Track", "Book", "Compare", "Explain", "Audit", "Forecast", "Draft", "Review", "Schedule"}
	skillObjects   = []string{"routes", "invoices", "shipments", "meetings", "contracts", "expenses", "recipes", "tickets", "portfolios", "reports", "flights", "deployments"}
	exampleAsks    = []string{"Plan a route from the office to the airport avoiding tolls.", "Summarise this quarter's expense report.", "Translate the attached contract into German.", "Which shipments are late this week?", "Draft a reply to ticket 4821.", "Compare the two supplier offers."}
	ma2dProtocols  = []string{"mcp", "rest", "grpc", "graphql", "websocket"}
	ma2dAuthTypes  = []string{"none", "bearer", "api_key", "oauth2", "basic", "mtls"}
	ma2dFormats    = []string{"json-rpc", "rest", "graphql"}
	ma2dInputs     = []string{"text", "voice", "image", "video", "file"}
	ma2dOutputs    = []string{"text", "json", "speech", "image", "video", "file"}
	isoLanguages   = []string{"en", "es", "fr", "de", "ja", "zh", "pt", "it", "ko", "nl"}
	licenses       = []string{"Apache-2.0", "MIT", "BSD-3-Clause", "GPL-3.0", "MPL-2.0"}
	ma2dCategories = []string{"Data", "API", "Weather Services", "Productivity", "Finance", "Developer Tools", "Travel"}
)

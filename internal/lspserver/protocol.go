package lspserver

// The subset of the Language Server Protocol 3.17 this server speaks,
// as the specification's JSON shapes. Only the fields the server reads or
// writes are declared; a client's others are ignored when decoding.

// Position is a place in a document: a 0-based line and a 0-based column
// counted in the session's position encoding (UTF-16 code units unless
// the client prefers another).
type Position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

// Range is a span of a document, End exclusive.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// initializeParams is what the server reads of initialize's params: the
// position encodings the client supports, most preferred first.
type initializeParams struct {
	Capabilities struct {
		General struct {
			PositionEncodings []string `json:"positionEncodings"`
		} `json:"general"`
	} `json:"capabilities"`
}

type textDocumentIdentifier struct {
	URI string `json:"uri"`
}

type textDocumentItem struct {
	URI        string `json:"uri"`
	LanguageID string `json:"languageId"`
	Version    int    `json:"version"`
	Text       string `json:"text"`
}

type didOpenParams struct {
	TextDocument textDocumentItem `json:"textDocument"`
}

type didChangeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int    `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		// Range is present for an incremental change, which this server
		// does not ask for: it announces full synchronisation.
		Range *Range `json:"range,omitempty"`
		Text  string `json:"text"`
	} `json:"contentChanges"`
}

type didCloseParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type didSaveParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
}

type textDocumentPositionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Position     Position               `json:"position"`
}

// Diagnostic severities.
const (
	severityError   = 1
	severityWarning = 2
)

// Diagnostic is one finding, as the client shows it.
type Diagnostic struct {
	Range           Range            `json:"range"`
	Severity        int              `json:"severity"`
	Code            string           `json:"code,omitempty"`
	CodeDescription *codeDescription `json:"codeDescription,omitempty"`
	Source          string           `json:"source"`
	Message         string           `json:"message"`
	// Data carries the finding's JSON Pointer, so that a code action
	// request, which echoes the diagnostic, names the member it is about.
	Data *diagnosticData `json:"data,omitempty"`
}

type codeDescription struct {
	Href string `json:"href"`
}

type diagnosticData struct {
	Path string `json:"path"`
}

type publishDiagnosticsParams struct {
	URI         string       `json:"uri"`
	Version     *int         `json:"version,omitempty"`
	Diagnostics []Diagnostic `json:"diagnostics"`
}

type markupContent struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

type hover struct {
	Contents markupContent `json:"contents"`
	Range    *Range        `json:"range,omitempty"`
}

// TextEdit replaces Range with NewText.
type TextEdit struct {
	Range   Range  `json:"range"`
	NewText string `json:"newText"`
}

// WorkspaceEdit is a code action's change: edits by document URI.
type WorkspaceEdit struct {
	Changes map[string][]TextEdit `json:"changes"`
}

type codeActionParams struct {
	TextDocument textDocumentIdentifier `json:"textDocument"`
	Range        Range                  `json:"range"`
	Context      struct {
		Diagnostics []Diagnostic `json:"diagnostics"`
		// Only, when set, limits the answer to these kinds of action.
		Only []string `json:"only,omitempty"`
	} `json:"context"`
}

// CodeAction is a fix the client may apply.
type CodeAction struct {
	Title       string        `json:"title"`
	Kind        string        `json:"kind"`
	Diagnostics []Diagnostic  `json:"diagnostics,omitempty"`
	IsPreferred bool          `json:"isPreferred,omitempty"`
	Edit        WorkspaceEdit `json:"edit"`
}

// Completion item kinds.
const (
	completionProperty   = 10
	completionEnumMember = 20
)

type completionItem struct {
	Label         string         `json:"label"`
	Kind          int            `json:"kind"`
	Detail        string         `json:"detail,omitempty"`
	Documentation *markupContent `json:"documentation,omitempty"`
	InsertText    string         `json:"insertText,omitempty"`
	TextEdit      *TextEdit      `json:"textEdit,omitempty"`
	FilterText    string         `json:"filterText,omitempty"`
}

type completionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

type logMessageParams struct {
	Type    int    `json:"type"`
	Message string `json:"message"`
}

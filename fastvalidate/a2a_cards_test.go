package fastvalidate

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// Valid cards of each A2A version, written for the tables: each uses every
// member its version defines, so that a case changes exactly what it tests.

const a2aCard01 = `{
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "url": "https://agent.example.com/a2a",
  "provider": {"organization": "Example Inc.", "url": null},
  "version": "1.0.0",
  "documentationUrl": "https://docs.example.com/recipe-agent",
  "capabilities": {"streaming": true, "pushNotifications": false, "stateTransitionHistory": false},
  "authentication": {"schemes": ["Bearer"], "credentials": null},
  "defaultInputModes": ["text"],
  "defaultOutputModes": ["text"],
  "skills": [
    {"id": "find", "name": "Find recipes", "description": null, "tags": ["cooking"], "examples": ["pasta with basil"], "inputModes": null, "outputModes": ["text"]}
  ]
}`

const a2aCard02 = `{
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "url": "https://agent.example.com/a2a",
  "provider": {"organization": "Example Inc.", "url": "https://example.com"},
  "iconUrl": "https://agent.example.com/icon.png",
  "version": "1.0.0",
  "documentationUrl": "https://docs.example.com/recipe-agent",
  "capabilities": {
    "streaming": true, "pushNotifications": false, "stateTransitionHistory": false,
    "extensions": [{"uri": "https://example.com/ext/ratings/v1", "description": "Ratings", "required": false, "params": {"scale": 5}}]
  },
  "securitySchemes": {
    "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT", "description": "A JWT"},
    "key": {"type": "apiKey", "in": "header", "name": "X-API-Key"},
    "oauth": {"type": "oauth2", "flows": {
      "authorizationCode": {"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token", "refreshUrl": "https://auth.example.com/refresh", "scopes": {"read": "Read recipes"}},
      "clientCredentials": {"tokenUrl": "https://auth.example.com/token", "scopes": {}},
      "implicit": {"authorizationUrl": "https://auth.example.com/authorize", "scopes": {}},
      "password": {"tokenUrl": "https://auth.example.com/token", "scopes": {}}
    }},
    "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://accounts.example.com/.well-known/openid-configuration"}
  },
  "security": [{"bearer": []}, {"oauth": ["read"], "key": []}],
  "defaultInputModes": ["text/plain", "application/json"],
  "defaultOutputModes": ["application/json"],
  "supportsAuthenticatedExtendedCard": true,
  "preferredTransport": "JSONRPC",
  "additionalInterfaces": [{"url": "https://agent.example.com/grpc", "transport": "GRPC"}],
  "skills": [
    {"id": "find", "name": "Find recipes", "description": "Finds recipes by ingredient.", "tags": ["cooking"], "examples": ["pasta with basil"], "inputModes": ["text/plain"], "outputModes": ["application/json; charset=utf-8"]},
    {"id": "convert", "name": "Convert units", "description": "Converts cups to grams.", "tags": []}
  ]
}`

// jwsHeader encodes a protected header as a JWS does.
func jwsHeader(json string) string { return base64.RawURLEncoding.EncodeToString([]byte(json)) }

var testSignature = base64.RawURLEncoding.EncodeToString(bytes.Repeat([]byte{0xA5}, 64))

var a2aCard03 = `{
  "protocolVersion": "0.3.0",
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "url": "https://agent.example.com/a2a",
  "preferredTransport": "JSONRPC",
  "additionalInterfaces": [{"url": "https://agent.example.com/a2a", "transport": "JSONRPC"}, {"url": "https://agent.example.com/rest", "transport": "HTTP+JSON"}],
  "provider": {"organization": "Example Inc.", "url": "https://example.com"},
  "iconUrl": "https://agent.example.com/icon.png",
  "version": "1.0.0",
  "documentationUrl": "https://docs.example.com/recipe-agent",
  "capabilities": {"streaming": true, "pushNotifications": false, "stateTransitionHistory": false, "extensions": [{"uri": "urn:example:ratings"}]},
  "securitySchemes": {
    "bearer": {"type": "http", "scheme": "bearer"},
    "mtls": {"type": "mutualTLS", "description": "Client certificates"},
    "oauth": {"type": "oauth2", "oauth2MetadataUrl": "https://auth.example.com/.well-known/oauth-authorization-server", "flows": {
      "clientCredentials": {"tokenUrl": "https://auth.example.com/token", "scopes": {"read": "Read recipes"}}
    }}
  },
  "security": [{"bearer": []}, {"mtls": []}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "supportsAuthenticatedExtendedCard": false,
  "skills": [
    {"id": "find", "name": "Find recipes", "description": "Finds recipes by ingredient.", "tags": ["cooking"], "security": [{"oauth": ["read"]}]}
  ],
  "signatures": [{"protected": "` + jwsHeader(`{"alg":"ES256","kid":"key-1","jku":"https://example.com/jwks.json"}`) + `", "signature": "` + testSignature + `", "header": {"note": "unprotected"}}]
}`

var a2aCard10 = `{
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "supportedInterfaces": [
    {"url": "https://agent.example.com/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
    {"url": "https://agent.example.com/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0", "tenant": "kitchen"}
  ],
  "provider": {"organization": "Example Inc.", "url": "https://example.com"},
  "iconUrl": "https://agent.example.com/icon.png",
  "version": "1.0.0",
  "documentationUrl": "https://docs.example.com/recipe-agent",
  "capabilities": {"streaming": true, "pushNotifications": false, "extendedAgentCard": true, "extensions": [{"uri": "https://example.com/ext/ratings/v1", "required": true}]},
  "securitySchemes": {
    "bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer", "bearerFormat": "JWT"}},
    "key": {"apiKeySecurityScheme": {"location": "header", "name": "X-API-Key", "description": "Issued on sign-up"}},
    "oauth": {"oauth2SecurityScheme": {"oauth2MetadataUrl": "https://auth.example.com/.well-known/oauth-authorization-server", "flows": {
      "authorizationCode": {"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token", "scopes": {"read": "Read recipes"}, "pkceRequired": true}
    }}},
    "device": {"oauth2SecurityScheme": {"flows": {"deviceCode": {"deviceAuthorizationUrl": "https://auth.example.com/device", "tokenUrl": "https://auth.example.com/token", "scopes": {}}}}},
    "oidc": {"openIdConnectSecurityScheme": {"openIdConnectUrl": "https://accounts.example.com/.well-known/openid-configuration"}},
    "mtls": {"mtlsSecurityScheme": {}}
  },
  "securityRequirements": [{"schemes": {"bearer": {"list": []}}}, {"schemes": {"oauth": {"list": ["read"]}, "key": {}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [
    {"id": "find", "name": "Find recipes", "description": "Finds recipes by ingredient.", "tags": ["cooking"], "examples": ["pasta"], "inputModes": ["text/plain"], "outputModes": ["application/json"], "securityRequirements": [{"schemes": {"oidc": {"list": ["openid"]}}}]}
  ],
  "signatures": [{"protected": "` + jwsHeader(`{"alg":"ES256","typ":"JOSE","kid":"key-1"}`) + `", "signature": "` + testSignature + `"}]
}`

// a2aCard03Schemes has the 0.3 security schemes and flows a2aCard03 lacks:
// apiKey in a query and a cookie, openIdConnect, http basic, and the
// authorizationCode, implicit and password flows, each with refreshUrl.
var a2aCard03Schemes = `{
  "protocolVersion": "0.3.0",
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "url": "https://agent.example.com/a2a",
  "preferredTransport": "JSONRPC",
  "version": "1.0.0",
  "capabilities": {},
  "securitySchemes": {
    "key": {"type": "apiKey", "in": "query", "name": "key", "description": "Issued on sign-up"},
    "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
    "oidc": {"type": "openIdConnect", "openIdConnectUrl": "https://accounts.example.com/.well-known/openid-configuration", "description": "Single sign-on"},
    "oauth": {"type": "oauth2", "description": "Delegated access", "flows": {
      "authorizationCode": {"authorizationUrl": "https://auth.example.com/authorize", "tokenUrl": "https://auth.example.com/token", "refreshUrl": "https://auth.example.com/refresh", "scopes": {"read": "Read recipes"}},
      "implicit": {"authorizationUrl": "https://auth.example.com/authorize", "refreshUrl": "https://auth.example.com/refresh", "scopes": {}},
      "password": {"tokenUrl": "https://auth.example.com/token", "refreshUrl": "https://auth.example.com/refresh", "scopes": {}}
    }},
    "basic": {"type": "http", "scheme": "basic", "description": "Username and password"}
  },
  "security": [{"key": [], "cookie": []}, {"oidc": ["openid"]}, {"oauth": ["read"]}, {"basic": []}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [
    {"id": "find", "name": "Find recipes", "description": "Finds recipes by ingredient.", "tags": ["cooking"], "examples": ["pasta"], "inputModes": ["text/plain"], "outputModes": ["text/plain"]}
  ],
  "signatures": [{"protected": "` + jwsHeader(`{"alg":"ES256","kid":"key-1"}`) + `", "signature": "` + testSignature + `"}]
}`

// a2aCard10Flows has the 1.0 schemes and flows a2aCard10 lacks: the
// clientCredentials flow and the deprecated implicit and password ones,
// each with refreshUrl, apiKey in a query and a cookie, http basic, and
// an unprotected signature header.
var a2aCard10Flows = `{
  "name": "Recipe Agent",
  "description": "Finds recipes by ingredient.",
  "supportedInterfaces": [
    {"url": "https://agent.example.com/a2a", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
  ],
  "version": "1.0.0",
  "capabilities": {},
  "securitySchemes": {
    "cc": {"oauth2SecurityScheme": {"description": "Service accounts", "flows": {"clientCredentials": {"tokenUrl": "https://auth.example.com/token", "refreshUrl": "https://auth.example.com/refresh", "scopes": {"read": "Read recipes"}}}}},
    "implicit": {"oauth2SecurityScheme": {"flows": {"implicit": {"authorizationUrl": "https://auth.example.com/authorize", "refreshUrl": "https://auth.example.com/refresh", "scopes": {}}}}},
    "password": {"oauth2SecurityScheme": {"flows": {"password": {"tokenUrl": "https://auth.example.com/token", "refreshUrl": "https://auth.example.com/refresh", "scopes": {}}}}},
    "query": {"apiKeySecurityScheme": {"location": "query", "name": "key"}},
    "cookie": {"apiKeySecurityScheme": {"location": "cookie", "name": "sid"}},
    "basic": {"httpAuthSecurityScheme": {"scheme": "basic", "description": "Username and password"}}
  },
  "securityRequirements": [{"schemes": {"cc": {"list": ["read"]}, "query": {"list": []}}}, {"schemes": {"basic": {}}}],
  "defaultInputModes": ["text/plain"],
  "defaultOutputModes": ["application/json"],
  "skills": [
    {"id": "find", "name": "Find recipes", "description": "Finds recipes by ingredient.", "tags": ["cooking"]}
  ],
  "signatures": [{"protected": "` + jwsHeader(`{"alg":"ES256","typ":"JOSE","kid":"key-1"}`) + `", "signature": "` + testSignature + `", "header": {"note": "unprotected"}}]
}`

// ma2dCard is the complete example of ma2d-agent-card-spec.md as printed.
const ma2dCard = `{
  "name": "weather-assistant",
  "version": "1.0.0",
  "description": "Intelligent weather assistant providing real-time weather data, forecasts, and historical weather information for cities worldwide. Supports multiple temperature units and provides detailed atmospheric conditions. Integrates with national weather services for accurate, up-to-date information with updates every 15 minutes.",
  "author": "Acme Weather Corp",
  "license": "Apache-2.0",
  "homepage": "https://weather-assistant.acme.com",
  "repository": "https://github.com/acme/weather-assistant",
  
  "skills": [
    {
      "name": "get_weather",
      "description": "Get current weather conditions including temperature, humidity, wind speed, precipitation, and atmospheric pressure for any city worldwide",
      "parameters": {
        "city": "string - City name (required)",
        "units": "string - celsius or fahrenheit (optional, default: celsius)"
      },
      "returns": "Weather object with current conditions",
      "mcp_server": "weather-api",
      "mcp_tool": "get_current_weather"
    },
    {
      "name": "get_forecast",
      "description": "Get multi-day weather forecast with daily highs, lows, precipitation chances, and general conditions",
      "parameters": {
        "city": "string - City name (required)",
        "days": "number - Forecast days 1-7 (optional, default: 3)"
      },
      "returns": "Array of daily forecast objects",
      "mcp_server": "weather-api",
      "mcp_tool": "get_forecast"
    }
  ],
  
  "capabilities": {
    "languages": ["en", "es", "fr"],
    "domains": ["weather", "meteorology", "climate"],
    "input_modes": ["text"],
    "output_modes": ["text", "json"],
    "streaming": false,
    "async": false,
    "state_management": false,
    "rate_limit": "100 requests per minute"
  },
  
  "invocation": {
    "protocol": "mcp",
    "endpoint": "https://api.acme.com/mcp/weather",
    "authentication": {
      "type": "bearer",
      "required": false
    },
    "method": "POST",
    "format": "json-rpc"
  },
  
  "examples": [
    {
      "skill": "get_weather",
      "description": "Get current weather for San Francisco",
      "input": {
        "city": "San Francisco",
        "units": "fahrenheit"
      },
      "output": {
        "city": "San Francisco",
        "temperature": 65,
        "units": "fahrenheit",
        "conditions": "Partly cloudy",
        "humidity": 72,
        "wind_speed": 12
      }
    },
    {
      "skill": "get_forecast",
      "description": "Get 5-day forecast for Tokyo",
      "input": {
        "city": "Tokyo",
        "days": 5
      },
      "output": {
        "city": "Tokyo",
        "forecast": [
          {"day": 1, "high": 25, "low": 18, "conditions": "Sunny"},
          {"day": 2, "high": 24, "low": 17, "conditions": "Partly cloudy"}
        ]
      }
    }
  ],
  
  "metadata": {
    "created_at": "2026-01-01T00:00:00Z",
    "updated_at": "2026-01-28T12:00:00Z",
    "tags": ["weather", "forecast", "real-time", "global"],
    "categories": ["Data", "API", "Weather Services"]
  }
}`

// omitted, as an edit's value, removes the member.
const omitted = "\x00omit"

// edited returns card with each pointer of edits (pointer, raw JSON value,
// pointer, value, ...) set to the value, or removed when it is omitted.
// The card is decoded and re-encoded, so members come out sorted by name;
// a pointer naming an absent member adds it, "-" appends to an array.
func edited(t testing.TB, card string, edits ...string) string {
	t.Helper()
	if len(edits)%2 != 0 {
		t.Fatal("edited: odd number of arguments")
	}
	dec := json.NewDecoder(strings.NewReader(card))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("edited: base card: %v", err)
	}
	for i := 0; i < len(edits); i += 2 {
		var val any
		if edits[i+1] != omitted {
			val = json.RawMessage(edits[i+1])
		}
		tokens := strings.Split(edits[i], "/")[1:]
		doc = setPointer(t, doc, tokens, val, edits[i+1] == omitted)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		t.Fatalf("edited: %v", err)
	}
	return strings.TrimSpace(b.String())
}

func setPointer(t testing.TB, node any, tokens []string, val any, remove bool) any {
	t.Helper()
	if len(tokens) == 0 {
		return val
	}
	tok := strings.ReplaceAll(strings.ReplaceAll(tokens[0], "~1", "/"), "~0", "~")
	switch n := node.(type) {
	case map[string]any:
		if len(tokens) == 1 && remove {
			if _, ok := n[tok]; !ok {
				t.Fatalf("edited: no member %q to remove", tok)
			}
			delete(n, tok)
			return n
		}
		n[tok] = setPointer(t, n[tok], tokens[1:], val, remove)
		return n
	case []any:
		if tok == "-" {
			return append(n, val)
		}
		i, err := strconv.Atoi(tok)
		if err != nil || i >= len(n) {
			t.Fatalf("edited: bad index %q", tok)
		}
		if len(tokens) == 1 && remove {
			return append(n[:i], n[i+1:]...)
		}
		n[i] = setPointer(t, n[i], tokens[1:], val, remove)
		return n
	}
	t.Fatalf("edited: %q leads into a scalar", tok)
	return nil
}

package testconfig

import "strings"

// CutSecret is a secret none of whose pieces of CutPiece bytes is found in
// the rest of the messages of these tests.
const CutSecret = "Zq9Xw2Lp7Rt4Vn8Ks3Hd6Fg1Jm5Cb0Ny"

// CutPiece is the length of the pieces of a secret a message must not show.
const CutPiece = 2

// LeakedPiece returns a piece of secret that msg shows, or "".
func LeakedPiece(msg, secret string) string {
	for i := 0; i+CutPiece <= len(secret); i++ {
		if p := secret[i : i+CutPiece]; strings.Contains(msg, p) {
			return p
		}
	}
	return ""
}

// GitHubToken and the others are tokens of the known formats, made up for
// the tests of redaction.
const (
	GitHubToken = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
	GitHubPAT   = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz"
	SlackToken  = "xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
	AWSKey      = "AKIA" + "IOSFODNN7EXAMPLE"
	JWT         = "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
	SlackHook   = "https://hooks.slack.com/services/" + "T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"
	DiscordHook = "https://discord.com/api/webhooks/" + "123456789012345678/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789"
)

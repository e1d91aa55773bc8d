// Copyright IBM Corp. 2014, 2026
// SPDX-License-Identifier: MPL-2.0

// This file holds the parts of hclwrite (github.com/hashicorp/hcl/v2 v2.25.0)
// that format.go needs: Token and Tokens from hclwrite/tokens.go, Format
// from hclwrite/public.go, writerTokens from hclwrite/parser.go and
// GraphemeCount from internal/unicodeutil. The code is hclwrite's; only
// what the formatter does not use is left out, and WriteTo writes into a
// bytes.Buffer, which cannot fail. See doc.go for why it is copied.

package hclfmt

import (
	"bufio"
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Format returns src in HCL's canonical layout, byte for byte what
// hclwrite.Format returns: indentation, spacing and the alignment of
// equals signs and comments change, nothing else. src should be free of
// syntax errors; if it is not, the result is a best effort.
func Format(src []byte) []byte {
	tokens := lexConfig(src)
	format(tokens)
	buf := &bytes.Buffer{}
	tokens.writeTo(buf)
	return buf.Bytes()
}

// Token is a single sequence of bytes annotated with a type, and the
// number of spaces before it.
type Token struct {
	Type         hclsyntax.TokenType
	Bytes        []byte
	SpacesBefore int
}

// asHCLSyntax returns the receiver expressed as an incomplete hclsyntax.Token.
func (t *Token) asHCLSyntax() hclsyntax.Token {
	return hclsyntax.Token{
		Type:  t.Type,
		Bytes: t.Bytes,
		Range: hcl.Range{
			Filename: "<invalid>",
		},
	}
}

// Tokens is a flat list of tokens.
type Tokens []*Token

// Columns returns the number of columns (grapheme clusters) the token sequence
// occupies. The result is not meaningful if there are newline or single-line
// comment tokens in the sequence.
func (ts Tokens) Columns() int {
	ret := 0
	for _, token := range ts {
		ret += token.SpacesBefore // spaces are always worth one column each
		ret += graphemeCount(token.Bytes)
	}
	return ret
}

// writeTo writes the bytes of each token, each after its spaces.
func (ts Tokens) writeTo(buf *bytes.Buffer) {
	for _, token := range ts {
		for range token.SpacesBefore {
			buf.WriteByte(' ')
		}
		buf.Write(token.Bytes)
	}
}

func lexConfig(src []byte) Tokens {
	mainTokens, _ := hclsyntax.LexConfig(src, "", hcl.Pos{Byte: 0, Line: 1, Column: 1})
	return writerTokens(mainTokens)
}

func writerTokens(nativeTokens hclsyntax.Tokens) Tokens {
	// Ultimately we want a slice of token _pointers_, but since we can
	// predict how much memory we're going to devote to tokens we'll allocate
	// it all as a single flat buffer and thus give the GC less work to do.
	tokBuf := make([]Token, len(nativeTokens))
	var lastByteOffset int
	for i, mainToken := range nativeTokens {
		// Create a copy of the bytes so that we can mutate without
		// corrupting the original token stream.
		bytes := make([]byte, len(mainToken.Bytes))
		copy(bytes, mainToken.Bytes)

		tokBuf[i] = Token{
			Type:  mainToken.Type,
			Bytes: bytes,

			// We assume here that spaces are always ASCII spaces, since
			// that's what the scanner also assumes, and thus the number
			// of bytes skipped is also the number of space characters.
			SpacesBefore: mainToken.Range.Start.Byte - lastByteOffset,
		}

		lastByteOffset = mainToken.Range.End.Byte
	}

	// Now make a slice of pointers into the previous slice.
	ret := make(Tokens, len(tokBuf))
	for i := range ret {
		ret[i] = &tokBuf[i]
	}

	return ret
}

func graphemeCount(buf []byte) int {
	scanner := bufio.NewScanner(bytes.NewReader(buf))
	scanner.Split(scanGraphemeClusters)
	var ret int
	for scanner.Scan() {
		ret++
	}
	return ret
}

package hclfmt

import "github.com/hashicorp/hcl/v2/hclsyntax"

// spaced reports whether one space goes between subject and the token
// after it on a line; before is the token before subject, TokenNil at the
// start of a cell. The rules are HCL's canonical style, first match wins.
func spaced(before, subject, after token) bool {
	s, a := subject.typ, after.typ
	switch {
	case a == hclsyntax.TokenNewline || a == hclsyntax.TokenNil:
		return false
	case s == hclsyntax.TokenIdent && (a == hclsyntax.TokenOParen || a == hclsyntax.TokenDoubleColon),
		s == hclsyntax.TokenDoubleColon && a == hclsyntax.TokenIdent:
		return false // a function's name and its call, namespaces
	case s == hclsyntax.TokenDot || a == hclsyntax.TokenDot:
		return false // attribute access
	case a == hclsyntax.TokenComma || a == hclsyntax.TokenEllipsis:
		return false
	case s == hclsyntax.TokenComma:
		return true
	case inTemplate(s, a):
		return false
	case s == hclsyntax.TokenIdent && string(subject.text) == "in" && before.typ == hclsyntax.TokenIdent:
		return true // [for x in [a, b] : x], not in[a, b]
	case a == hclsyntax.TokenOBrack && (s == hclsyntax.TokenIdent || s == hclsyntax.TokenNumberLit || bracketChange(subject) < 0):
		return false // an index
	case s == hclsyntax.TokenBang:
		return false
	case s == hclsyntax.TokenMinus:
		return !negates(before.typ)
	case s == hclsyntax.TokenOBrace || a == hclsyntax.TokenCBrace:
		// Braces take spaces inside, as in block { a = 1 } and
		// { a = 1 }, but {} stays as it is.
		return !(s == hclsyntax.TokenOBrace && a == hclsyntax.TokenCBrace)
	case (s == hclsyntax.TokenTemplateInterp || s == hclsyntax.TokenTemplateControl) && a == hclsyntax.TokenOBrace,
		s == hclsyntax.TokenCBrace && a == hclsyntax.TokenTemplateSeqEnd:
		return true // ${ {a = 1} }
	case s == hclsyntax.TokenTemplateSeqEnd && (a == hclsyntax.TokenTemplateInterp || a == hclsyntax.TokenTemplateControl):
		return false
	case bracketChange(subject) > 0, bracketChange(after) < 0:
		return false // inside brackets
	}
	return true
}

// inTemplate reports whether subject and after are parts of a quoted
// string or heredoc that no space may be put between.
func inTemplate(s, a hclsyntax.TokenType) bool {
	switch s {
	case hclsyntax.TokenQuotedLit, hclsyntax.TokenStringLit, hclsyntax.TokenOQuote, hclsyntax.TokenOHeredoc:
		return true
	}
	switch a {
	case hclsyntax.TokenQuotedLit, hclsyntax.TokenStringLit, hclsyntax.TokenCQuote, hclsyntax.TokenCHeredoc:
		return true
	}
	return false
}

// negates reports whether a minus after a token of type prev is a
// negation, written against its operand, rather than a subtraction: after
// nothing, an opening bracket, a separator or an operator.
func negates(prev hclsyntax.TokenType) bool {
	switch prev {
	case hclsyntax.TokenNil,
		hclsyntax.TokenOParen, hclsyntax.TokenOBrace, hclsyntax.TokenOBrack, hclsyntax.TokenEqual, hclsyntax.TokenColon, hclsyntax.TokenComma, hclsyntax.TokenQuestion,
		hclsyntax.TokenPlus, hclsyntax.TokenStar, hclsyntax.TokenSlash, hclsyntax.TokenPercent, hclsyntax.TokenMinus,
		hclsyntax.TokenEqualOp, hclsyntax.TokenNotEqual, hclsyntax.TokenGreaterThan, hclsyntax.TokenGreaterThanEq, hclsyntax.TokenLessThan, hclsyntax.TokenLessThanEq,
		hclsyntax.TokenAnd, hclsyntax.TokenOr, hclsyntax.TokenBang:
		return true
	}
	return false
}

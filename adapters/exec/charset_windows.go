package exec

import (
	"golang.org/x/sys/windows"
	"golang.org/x/text/encoding"
)

// defaultCharset is the encoding of a command's output when its exec block
// sets no charset: on Windows, console programs write in the console's
// output code page (GetConsoleOutputCP: 936, GBK, on Chinese Windows; 437
// or 850 on English and Western European ones), and toolhost's commands
// share its console. Without a console (GetConsoleOutputCP fails or says
// 0), the ANSI code page (GetACP) is what programs write in. A byte order
// mark at the start of the output takes precedence (defaultCharsetFor).
func defaultCharset() encoding.Encoding {
	return defaultCharsetFor(consoleCodePage())
}

// consoleCodePage is the code page of the console's output, or the ANSI
// code page when there is no console.
func consoleCodePage() uint32 {
	if cp, err := windows.GetConsoleOutputCP(); err == nil && cp != 0 {
		return cp
	}
	return windows.GetACP()
}

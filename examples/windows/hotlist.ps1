# hotlist.ps1: the Baidu hot list, as the PowerShell MCP server of the
# protocol notes fetched it, reduced to what the tool needs. toolhost speaks
# MCP; this script only fetches the list and prints it as JSON.
#
# Run by examples/windows/tools.hcl as
#   powershell.exe -NoProfile -ExecutionPolicy Bypass -File hotlist.ps1 -Limit 3
# Each parameter is a value of its own (-File, never -Command), so a value
# is never read as PowerShell code.
#
# Save this file as UTF-8 with a BOM if you edit its Chinese text in Windows
# PowerShell 5.1, which reads a script without a BOM in the ANSI code page.

param(
    [ValidateRange(1, 50)]
    [int]$Limit = 10,

    # Another server with the same JSON shape (a mirror, or a test server).
    [string]$BaseUrl = $(if ($env:HOTLIST_BASE_URL) { $env:HOTLIST_BASE_URL } else { "https://api.vvhan.com" })
)

$ErrorActionPreference = "Stop"

# WebClient with UTF-8, as in the notes: Invoke-RestMethod would decode the
# Chinese text in the wrong code page.
$client = New-Object System.Net.WebClient
$client.Encoding = [System.Text.Encoding]::UTF8
$client.Headers.Add("Accept", "application/json")
$list = $client.DownloadString("$BaseUrl/api/hotlist/baiduRD") | ConvertFrom-Json

$result = [ordered]@{
    success     = $list.success
    name        = $list.name
    update_time = $list.update_time
    data        = @($list.data | Where-Object { $_.index -le $Limit } | ForEach-Object {
        [ordered]@{ index = $_.index; title = $_.title; hot = $_.hot; url = $_.url }
    })
}
$json = ConvertTo-Json -InputObject $result -Depth 5 -Compress

# Write UTF-8 without a byte order mark, whatever the console's code page:
# the tool says charset = "utf-8".
$bytes = (New-Object System.Text.UTF8Encoding $false).GetBytes($json)
$stdout = [Console]::OpenStandardOutput()
$stdout.Write($bytes, 0, $bytes.Length)
$stdout.Flush()

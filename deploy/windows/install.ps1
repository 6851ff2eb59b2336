<#
.SYNOPSIS
  Installs sebridge as a Windows service (WinSW) on an Azure Windows VM.
.PARAMETER Dist
  The distribution folder (bridge-app\target\dist of a build, or an unpacked release), with lib\ and,
  ideally, a jre\ (Java 17+). Without jre\, JavaHome must point at one.
.PARAMETER WinSW
  Path to WinSW-x64.exe (v2.12 or later), downloaded from its GitHub releases.
.PARAMETER Config
  Your sebridge.yaml (default: a file-sink example under ProgramData you then edit).
.EXAMPLE
  .\install.ps1 -Dist C:\temp\sebridge\dist -WinSW C:\temp\WinSW-x64.exe -Config C:\temp\sebridge.yaml
#>
param(
  [Parameter(Mandatory = $true)][string]$Dist,
  [Parameter(Mandatory = $true)][string]$WinSW,
  [string]$Config = "",
  [string]$JavaHome = ""
)
$ErrorActionPreference = "Stop"
$home_ = Join-Path $env:ProgramFiles "sebridge"
$data = Join-Path $env:ProgramData "sebridge"

if (-not (Test-Path (Join-Path $Dist "lib"))) { throw "$Dist\lib not found (build with ./mvnw -DskipTests package)" }

$svc = Get-Service -Name sebridge -ErrorAction SilentlyContinue
if ($svc) { & (Join-Path $home_ "sebridge.exe") stop; & (Join-Path $home_ "sebridge.exe") uninstall }

New-Item -ItemType Directory -Force -Path $home_, $data, (Join-Path $data "state"), (Join-Path $data "logs") | Out-Null
Copy-Item -Recurse -Force (Join-Path $Dist "lib") $home_
if (Test-Path (Join-Path $Dist "jre")) { Copy-Item -Recurse -Force (Join-Path $Dist "jre") $home_ }
elseif ($JavaHome) { Copy-Item -Recurse -Force $JavaHome (Join-Path $home_ "jre") }
elseif (-not (Test-Path (Join-Path $home_ "jre\bin\java.exe"))) { throw "no jre\ in $Dist: pass -JavaHome <Java 17+>" }
Copy-Item -Force $WinSW (Join-Path $home_ "sebridge.exe")
Copy-Item -Force (Join-Path $PSScriptRoot "sebridge.xml") (Join-Path $home_ "sebridge.xml")

$cfg = Join-Path $data "sebridge.yaml"
if ($Config) { Copy-Item -Force $Config $cfg }
elseif (-not (Test-Path $cfg)) {
  @"
# sebridge configuration: every key is in docs/configuration.md.
sinks: file
sink:
  file:
    path: $($data -replace '\\','/')/events.jsonl
"@ | Set-Content -Encoding UTF8 $cfg
}

& (Join-Path $home_ "jre\bin\java.exe") -cp "$home_\lib\*" dev.sebridge.app.Main check-config --config $cfg
if ($LASTEXITCODE -ne 0) { throw "check-config refused $cfg (exit $LASTEXITCODE)" }

& (Join-Path $home_ "sebridge.exe") install
# The virtual account exists once the service does: now restrict state and configuration to it,
# SYSTEM and Administrators.
icacls $data /inheritance:r /grant:r "SYSTEM:(OI)(CI)F" "Administrators:(OI)(CI)F" "NT SERVICE\sebridge:(OI)(CI)M" | Out-Null
& (Join-Path $home_ "sebridge.exe") start
Write-Host "sebridge installed in $home_; state and logs in $data"

<#
.SYNOPSIS
  Installs Stock Manager as a Windows service that runs as its own virtual account.

.DESCRIPTION
  Run in an elevated PowerShell from a folder that holds stock-manager.exe, WinSW-x64.exe (WinSW 3),
  stock-manager-service.xml and config.example.toml. It
    1. copies the program and the service wrapper to -InstallDir,
    2. creates -DataRoot with config.toml (from the example, never over an existing one), data\
       and logs\,
    3. registers the service StockManager, running as NT SERVICE\StockManager (not LocalSystem),
    4. limits -DataRoot to Administrators and SYSTEM (full control) and the service (read; modify
       in data\ and logs\), so other users of the PC cannot read the client secret or the data.
  Safe to run again, for example to upgrade: it stops the service, replaces the program and
  keeps config.toml and the data.
#>
[CmdletBinding()]
param(
    [string]$InstallDir = (Join-Path $env:ProgramFiles 'Stock Manager'),
    [string]$DataRoot = (Join-Path $env:ProgramData 'Stock Manager')
)
$ErrorActionPreference = 'Stop'

# The virtual account's name follows from the service name (<id> in the XML).
$ServiceName = 'StockManager'
$ServiceAccount = "NT SERVICE\$ServiceName"
# Well-known SIDs, so the script works on Windows in any language.
$Administrators = '*S-1-5-32-544'
$LocalSystem = '*S-1-5-18'

function Invoke-Checked([string]$What, [scriptblock]$Command) {
    & $Command
    if ($LASTEXITCODE -ne 0) { throw "$What failed (exit code $LASTEXITCODE)" }
}

$principal = New-Object Security.Principal.WindowsPrincipal([Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
    throw 'Run this script in an elevated PowerShell (Run as administrator).'
}

$source = $PSScriptRoot
foreach ($file in 'stock-manager.exe', 'WinSW-x64.exe', 'stock-manager-service.xml', 'config.example.toml') {
    if (-not (Test-Path (Join-Path $source $file))) { throw "$file is missing next to install.ps1" }
}

$existing = Get-Service -Name $ServiceName -ErrorAction SilentlyContinue
$wasRunning = $existing -and $existing.Status -ne 'Stopped'
if ($wasRunning) {
    Write-Host "Stopping $ServiceName"
    Stop-Service -Name $ServiceName
}

Write-Host "Program: $InstallDir"
New-Item -ItemType Directory -Force -Path $InstallDir | Out-Null
Copy-Item -Force (Join-Path $source 'stock-manager.exe') $InstallDir
Copy-Item -Force (Join-Path $source 'WinSW-x64.exe') (Join-Path $InstallDir 'stock-manager-service.exe')
Copy-Item -Force (Join-Path $source 'stock-manager-service.xml') $InstallDir
Copy-Item -Force (Join-Path $source 'config.example.toml') $InstallDir

Write-Host "Data: $DataRoot"
foreach ($dir in $DataRoot, (Join-Path $DataRoot 'data'), (Join-Path $DataRoot 'logs')) {
    New-Item -ItemType Directory -Force -Path $dir | Out-Null
}
$config = Join-Path $DataRoot 'config.toml'
if (-not (Test-Path $config)) {
    Copy-Item (Join-Path $source 'config.example.toml') $config
    Write-Host "Created ${config}: fill in [provider] before starting the service."
}

$wrapper = Join-Path $InstallDir 'stock-manager-service.exe'
if (-not $existing) {
    Write-Host "Registering service $ServiceName"
    Invoke-Checked 'stock-manager-service.exe install' { & $wrapper install }
}
# The XML names the account already; this holds it with any WinSW version (a virtual account
# has no password, so none is given).
Invoke-Checked 'sc.exe config' { sc.exe config $ServiceName obj= $ServiceAccount | Out-Null }
$startName = (Get-CimInstance Win32_Service -Filter "Name='$ServiceName'").StartName
if ($startName -ne $ServiceAccount) { throw "service runs as '$startName', expected '$ServiceAccount'" }

# Permissions: inheritance from ProgramData (which lets every user read) is cut; Administrators
# and SYSTEM have full control, the service account may read, and write in data\ and logs\
# only. Files made before this run (an upgrade) take these rules again. The virtual account
# exists once the service does, hence this order.
Invoke-Checked 'icacls (owner)' { icacls $DataRoot /setowner $Administrators /T /C /Q }
Invoke-Checked 'icacls (data root)' {
    icacls $DataRoot /inheritance:r /grant:r "${Administrators}:(OI)(CI)F" "${LocalSystem}:(OI)(CI)F" "${ServiceAccount}:(OI)(CI)RX" /Q
}
Invoke-Checked 'icacls (reset below the data root)' { icacls "$DataRoot\*" /reset /T /C /Q }
foreach ($dir in 'data', 'logs') {
    $path = Join-Path $DataRoot $dir
    Invoke-Checked "icacls ($dir)" { icacls $path /grant:r "${ServiceAccount}:(OI)(CI)M" /T /C /Q }
}

if ($wasRunning) {
    Write-Host "Starting $ServiceName"
    Start-Service -Name $ServiceName
} else {
    Write-Host "Installed. Edit $config, then: Start-Service $ServiceName"
}

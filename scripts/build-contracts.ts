// Compiles contracts/*.sol with solc-js (the `solc` dev dependency, pinned) into contracts/<Name>.json
// ({abi, bytecode}), the artifacts tests deploy to anvil. `--check` fails when an artifact is stale.
//   npx tsx scripts/build-contracts.ts [--check]
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import solc from 'solc'

const dir = join(import.meta.dirname, '..', 'contracts')
const check = process.argv.includes('--check')
const sources = Object.fromEntries(readdirSync(dir).filter((f) => f.endsWith('.sol')).map((f) => [f, { content: readFileSync(join(dir, f), 'utf8') }]))
const input = {
  language: 'Solidity',
  sources,
  settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
}
const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
  errors?: Array<{ severity: string; formattedMessage: string }>
  contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>
}
const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
if (errors.length > 0) {
  for (const e of errors) console.error(e.formattedMessage)
  process.exit(1)
}
let stale = 0
for (const [file, contracts] of Object.entries(output.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    const path = join(dir, `${name}.json`)
    const text = `${JSON.stringify({ contractName: name, source: `contracts/${file}`, compiler: solc.version(), abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` }, null, 2)}\n`
    if (check) {
      let current = ''
      try {
        current = readFileSync(path, 'utf8')
      } catch {}
      if (current !== text) {
        console.error(`${path} is stale: run npx tsx scripts/build-contracts.ts`)
        stale++
      }
    } else {
      writeFileSync(path, text)
      console.log(`wrote ${path}`)
    }
  }
}
process.exit(stale > 0 ? 1 : 0)

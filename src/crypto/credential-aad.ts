// Associated data that binds a provider key's ciphertext to its org and credential id: a ciphertext
// copied onto another credential row fails to decrypt. Encryption (management API) and decryption
// (credential mirror) must agree on it, so it lives here, below both.
export function credentialAad(orgId: string, credentialId: string): string {
  return `${orgId}:${credentialId}`;
}

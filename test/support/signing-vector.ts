/**
 * The fixed test vector for docs/tool-endpoints.md. The expected signature was computed
 * outside this code base, with
 *
 *   printf '%s' "1768471200.$BODY" | openssl dgst -sha256 -hmac 'whsec_test_4f1c2a9e7b'
 *
 * and the test below recomputes it a second way with createHmac over the concatenated bytes.
 */
export const TEST_VECTOR = {
  secret: 'whsec_test_4f1c2a9e7b',
  timestamp: 1768471200, // 2026-01-15T10:00:00Z
  body:
    '{"city":"Lisbon","weightKg":2.5,"_svc_context":{"agentId":"agt_7Hq2LmX9pR4sT1vW3yZ5","orgId":"org_Ab3De5Gh7Jk9Mn1Pq3Rs",' +
    '"timestamp":"2026-01-15T10:00:00.000Z","callId":"call_Xy7Wv5Ut3Sr1Qp9On7Ml","toolId":"tool_Kj5Hg3Fd1Sa9Zx7Cv5Bn"}}',
  signature: 'sha256=411ef63b6e81fdf05c27e6b6c49a4fb71eb25bef045b85d1715f377e1aa8d4fb',
} as const;

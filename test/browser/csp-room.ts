// A room created over HTTP, as a teacher's browser would, for browser tests that only need a code.
export async function createRoomOver(url: string): Promise<{ code: string; teacherKey: string }> {
  const res = await fetch(`${url}/api/rooms`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  if (res.status !== 201) throw new Error(`create room: ${res.status}`);
  return res.json();
}

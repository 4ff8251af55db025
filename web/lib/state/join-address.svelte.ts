// Where students join: the address the server says phones can reach (`GET /api/info`: PUBLIC_URL,
// else a LAN address) rather than whatever address the teacher's browser used — `localhost` reaches
// no phone. Asked again every 30 s while shown, since a laptop may join the Wi-Fi after the start.
import { fetchJoinInfo } from '$lib/net/api.ts';

const REFRESH_MS = 30_000;

export class JoinAddress {
  /** The origin join links start with; this page's own until the server has answered. */
  base = $state(location.origin);
  /** Only this computer can reach the server: the link and QR will not open on a phone. */
  loopbackOnly = $state(false);
  private timer: ReturnType<typeof setInterval> | null = null;

  start(): void {
    void this.refresh();
    this.timer ??= setInterval(() => void this.refresh(), REFRESH_MS);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  async refresh(): Promise<void> {
    const res = await fetchJoinInfo();
    if (!res.ok) return;
    this.base = res.value.baseUrl.replace(/\/+$/, '');
    this.loopbackOnly = res.value.loopbackOnly;
  }

  joinUrl(code: string): string {
    return `${this.base}/join/${code}`;
  }
}

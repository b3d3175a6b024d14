import { Page } from "../components/page";

export function NotFound() {
  return (
    <Page title="Not found">
      <p>
        There is no page here. Go to the <a href="/">fleet</a> or the <a href="/agents">agents</a>.
      </p>
    </Page>
  );
}

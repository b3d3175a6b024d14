import { dataOf } from "../api/client";
import { CleanUpAgeForm, cleanUpAgeText } from "../components/clean-up-age";
import { useConsole } from "../components/console";
import { Fact } from "../components/fact";
import { TimeZoneForm } from "../components/maintenance-windows";
import { Page } from "../components/page";
import { Loaded, useResource } from "../components/resource";
import { dateTime } from "../format";
import { mayCall } from "../session";

/** What the tenant sets for its whole fleet: every role reads it, admins change it. */
export function Settings() {
  const { client, session } = useConsole();
  const [settings, reload] = useResource(() => dataOf(client.GET("/api/v1/settings")), "settings");
  return (
    <Page title="Tenant settings">
      <Loaded resource={settings} what="the tenant's settings" reload={reload}>
        {(data) => (
          <>
            <dl class="facts">
              <Fact term="Clean-up of silent agents, by default">
                {cleanUpAgeText(data.cleanUpAfterDays, "never: silent agents are kept")}
              </Fact>
              <Fact term="Time zone of maintenance windows">{data.timeZone ?? "UTC"}</Fact>
              <Fact term="Changed">{dateTime(data.updatedAt)}</Fact>
            </dl>
            <p class="hint">A class with a clean-up age of its own keeps to it instead.</p>
            {mayCall(session, "PUT /api/v1/settings") && (
              <CleanUpAgeForm
                current={data.cleanUpAfterDays}
                unsetMeans="classes without their own age keep their silent agents"
                save={(cleanUpAfterDays) =>
                  dataOf(client.PUT("/api/v1/settings", { body: { cleanUpAfterDays } }))
                }
                onSaved={reload}
              />
            )}
            {mayCall(session, "PUT /api/v1/settings") && (
              <TimeZoneForm
                current={data.timeZone}
                save={(timeZone) => dataOf(client.PUT("/api/v1/settings", { body: { timeZone } }))}
                onSaved={reload}
              />
            )}
          </>
        )}
      </Loaded>
    </Page>
  );
}

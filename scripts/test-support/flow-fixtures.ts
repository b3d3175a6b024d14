/**
 * A MiNiFi C++ YAML flow configuration that names its processors by short class name, as C++ flows may,
 * with a service by `type` and a nested process group.
 */
export const cppYamlFlow = `MiNiFi Config Version: 3
Flow Controller:
  name: pumps
Processors:
  - name: generate
    id: 5128e3c8-015a-1000-79ca-83af40ec1991
    class: GenerateFlowFile
  - name: log
    id: 5128e3c8-015a-1000-79ca-83af40ec1992
    class: LogAttribute
Controller Services:
  - name: ssl
    id: 5128e3c8-015a-1000-79ca-83af40ec1993
    type: SSLContextService
Process Groups:
  - name: inner
    Processors:
      - name: put
        class: org.apache.nifi.minifi.processors.PutFile
Connections: []
`;

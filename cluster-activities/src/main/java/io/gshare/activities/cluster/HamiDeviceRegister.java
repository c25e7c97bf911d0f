package io.gshare.activities.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gshare.workflows.cluster.GpuDeviceInfo;
import io.gshare.workflows.kube.Annotations;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads HAMi's {@code hami.io/node-nvidia-register} node annotation in both encodings it has used:
 * a JSON array since v2.8.0, and the {@code uuid,count,devmem,devcore,type,numa,health[,index,mode]:}
 * list before. A device's {@code type} carries HAMi's vendor prefix ({@code NVIDIA-NVIDIA H100 …});
 * the model gShare matches offerings against is the NVML name after it.
 */
public final class HamiDeviceRegister {

  private static final String ANNOTATION = Annotations.HAMI_NODE_REGISTER;
  private static final String VENDOR_PREFIX = "NVIDIA-";
  private static final ObjectMapper JSON = new ObjectMapper();

  private HamiDeviceRegister() {}

  /** The devices in {@code value}; an absent or empty annotation means none. */
  public static List<GpuDeviceInfo> parse(String value) {
    if (value == null || value.isBlank()) {
      return List.of();
    }
    String trimmed = value.trim();
    return trimmed.startsWith("[") ? parseJson(trimmed) : parseLegacy(trimmed);
  }

  /** {@code NVIDIA-NVIDIA H100 80GB HBM3} → {@code NVIDIA H100 80GB HBM3}; {@code NVIDIA-Tesla V100…} → {@code Tesla V100…}. */
  public static String modelOf(String hamiType) {
    if (hamiType == null) {
      return "";
    }
    return hamiType.startsWith(VENDOR_PREFIX) ? hamiType.substring(VENDOR_PREFIX.length()) : hamiType;
  }

  private static List<GpuDeviceInfo> parseJson(String value) {
    JsonNode array;
    try {
      array = JSON.readTree(value);
    } catch (Exception e) {
      throw new IllegalArgumentException("unreadable " + ANNOTATION + ": " + e.getMessage(), e);
    }
    List<GpuDeviceInfo> devices = new ArrayList<>();
    int position = 0;
    for (JsonNode d : array) {
      // Every field is omitempty in HAMi: a missing one is its zero value.
      String uuid = d.path("id").asText("");
      if (uuid.isEmpty()) {
        throw new IllegalArgumentException(ANNOTATION + " lists a device without an id");
      }
      devices.add(new GpuDeviceInfo(
          uuid,
          d.has("index") ? d.path("index").asInt() : position,
          modelOf(d.path("type").asText("")),
          d.path("devmem").asLong(0),
          d.path("devcore").asInt(0),
          d.path("count").asInt(0),
          d.path("health").asBoolean(false)));
      position++;
    }
    return devices;
  }

  private static List<GpuDeviceInfo> parseLegacy(String value) {
    List<GpuDeviceInfo> devices = new ArrayList<>();
    int position = 0;
    for (String entry : value.split(":")) {
      if (entry.isBlank()) {
        continue;
      }
      String[] f = entry.split(",");
      if (f.length < 7) {
        throw new IllegalArgumentException(
            ANNOTATION + " entry '" + entry + "' has " + f.length + " fields, expected uuid,count,devmem,devcore,type,numa,health");
      }
      try {
        devices.add(new GpuDeviceInfo(
            f[0].trim(),
            f.length > 7 && !f[7].isBlank() ? Integer.parseInt(f[7].trim()) : position,
            modelOf(f[4].trim()),
            Long.parseLong(f[2].trim()),
            Integer.parseInt(f[3].trim()),
            Integer.parseInt(f[1].trim()),
            Boolean.parseBoolean(f[6].trim())));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(ANNOTATION + " entry '" + entry + "' has a bad number", e);
      }
      position++;
    }
    return devices;
  }
}

package io.gshare.cli.support;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.gshare.client.ApiJson;

/** The API's JSON ({@link ApiJson}) and the same mapping for {@code -o yaml}. */
public final class Json {

  public static final ObjectMapper MAPPER = ApiJson.MAPPER;
  public static final ObjectMapper YAML = ApiJson.configure(new ObjectMapper(new YAMLFactory()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)));

  private Json() {}

}

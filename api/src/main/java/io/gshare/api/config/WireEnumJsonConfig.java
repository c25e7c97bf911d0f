package io.gshare.api.config;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import io.gshare.workflows.common.WireEnum;
import io.swagger.v3.core.converter.AnnotatedType;
import io.swagger.v3.core.converter.ModelConverter;
import io.swagger.v3.core.converter.ModelConverterContext;
import io.swagger.v3.core.util.Json;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import java.io.IOException;
import java.util.Iterator;
import java.util.Optional;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * An enum that crosses the API as one of gShare's wire values ({@link WireEnum}: {@code not_ready}, not
 * {@code NOT_READY}) is written, read and documented by its spelling: the records of {@code core} carry the enum to
 * the API's edge, and the OpenAPI document lists the spellings a client may meet. Only Spring's mapper: Temporal's
 * payloads keep their own (recorded histories name the constants).
 */
@Configuration(proxyBeanMethods = false)
class WireEnumJsonConfig {

  @Bean
  SimpleModule wireEnumModule() {
    SimpleModule module = new SimpleModule("gshare-wire-enums");
    module.addSerializer(WireEnum.class, new WireEnumSerializer());
    module.setDeserializerModifier(new BeanDeserializerModifier() {
      @Override
      public JsonDeserializer<?> modifyEnumDeserializer(DeserializationConfig config, JavaType type,
          BeanDescription description, JsonDeserializer<?> deserializer) {
        return WireEnum.class.isAssignableFrom(type.getRawClass())
            ? new WireEnumDeserializer(type.getRawClass()) : deserializer;
      }
    });
    return module;
  }

  /** In the OpenAPI document: a string whose {@code enum} is the spellings, in declaration order. */
  @Bean
  ModelConverter wireEnumSchemas() {
    return new ModelConverter() {
      @Override
      public Schema<?> resolve(AnnotatedType type, ModelConverterContext context, Iterator<ModelConverter> chain) {
        JavaType javaType = Json.mapper().constructType(type.getType());
        Class<?> raw = javaType == null ? null : javaType.getRawClass();
        if (raw != null && raw.isEnum() && WireEnum.class.isAssignableFrom(raw)) {
          StringSchema schema = new StringSchema();
          WireEnum.spellings(raw).forEach(schema::addEnumItem);
          return schema;
        }
        return chain.hasNext() ? chain.next().resolve(type, context, chain) : null;
      }
    };
  }

  private static final class WireEnumSerializer extends StdSerializer<WireEnum> {

    WireEnumSerializer() {
      super(WireEnum.class);
    }

    @Override
    public void serialize(WireEnum value, JsonGenerator out, SerializerProvider provider) throws IOException {
      out.writeString(value.wireName());
    }
  }

  private static final class WireEnumDeserializer extends StdScalarDeserializer<Object> {

    private final Class<?> type;

    WireEnumDeserializer(Class<?> type) {
      super(type);
      this.type = type;
    }

    @Override
    public Object deserialize(JsonParser in, DeserializationContext context) throws IOException {
      String text = in.getValueAsString();
      if (text == null) {
        return context.handleUnexpectedToken(type, in);
      }
      Optional<WireEnum> constant = WireEnum.parseAny(type, text);
      return constant.isPresent() ? constant.get()
          : context.handleWeirdStringValue(type, text, "not one of the values %s", WireEnum.spellings(type));
    }
  }
}
